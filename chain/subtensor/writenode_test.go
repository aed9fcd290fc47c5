package subtensor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"golang.org/x/crypto/blake2b"
)

// writeNode answers, over a loopback websocket, the JSON-RPC a Client
// needs to dial and write: the runtime version and metadata, block hashes
// and the head, the account's nonce, author_submitAndWatchExtrinsic (each
// extrinsic is in a new block at once, and the subscription says so), and
// the block and its System.Events. What a block holds is the test's
// script: given the submitted extrinsic, the block's extrinsics and its
// System.Events value (nil for none). It speaks JSON-RPC itself, over
// gorilla/websocket, because a write needs a subscription, which
// gethrpc's server (node_test.go's fakeNode) does not serve.
type writeNode struct {
	meta   string
	script func(ext []byte) (extrinsics [][]byte, events []byte)
	// reject, if set, is the JSON-RPC error object the submission gets;
	// status, if set, is the pool's last word on it instead of inBlock.
	reject map[string]any
	status string

	mu        sync.Mutex
	blocks    map[string]writeBlock // by the block hash's hex
	submitted [][]byte
}

type writeBlock struct {
	extrinsics []string
	events     []byte
}

const (
	writeGenesis = "0x" + "11111111111111111111111111111111" + "11111111111111111111111111111111"
	writeHead    = "0x" + "22222222222222222222222222222222" + "22222222222222222222222222222222"
)

// start serves n on loopback and returns its ws:// URL.
func (n *writeNode) start(t *testing.T) string {
	t.Helper()
	n.blocks = map[string]writeBlock{}
	var up websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			var req struct {
				ID     json.RawMessage   `json:"id"`
				Method string            `json:"method"`
				Params []json.RawMessage `json:"params"`
			}
			if conn.ReadJSON(&req) != nil {
				return
			}
			result, updates, ok := n.answer(req.Method, req.Params)
			resp := map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}
			switch {
			case !ok:
				resp = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no method " + req.Method}}
			case req.Method == "author_submitAndWatchExtrinsic" && n.reject != nil:
				resp, updates = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": n.reject}, nil
			case req.Method == "author_submitAndWatchExtrinsic" && n.status != "":
				updates = []any{"ready", n.status}
			}
			if conn.WriteJSON(resp) != nil {
				return
			}
			for _, u := range updates {
				note := map[string]any{"jsonrpc": "2.0", "method": "author_extrinsicUpdate", "params": map[string]any{"subscription": "1", "result": u}}
				if conn.WriteJSON(note) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// answer is one call's result, and the subscription's updates that follow
// it.
func (n *writeNode) answer(method string, params []json.RawMessage) (any, []any, bool) {
	str := func(i int) string {
		var s string
		if i < len(params) {
			json.Unmarshal(params[i], &s)
		}
		return s
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "chain_getBlockHash":
		if string(params[0]) == "0" {
			return writeGenesis, nil, true
		}
		return writeHead, nil, true
	case "chain_getHeader":
		return map[string]string{"number": "0x64"}, nil, true
	case "state_getRuntimeVersion":
		return map[string]uint32{"specVersion": 425, "transactionVersion": 1}, nil, true
	case "state_getMetadata":
		return n.meta, nil, true
	case "system_accountNextIndex":
		return 0, nil, true
	case "author_submitAndWatchExtrinsic":
		ext, err := unhex(str(0))
		if err != nil {
			return nil, nil, false
		}
		n.submitted = append(n.submitted, ext)
		xs, events := n.script(ext)
		h := blake2b.Sum256(ext)
		hash := hexOf(h[:])
		b := writeBlock{events: events}
		for _, x := range xs {
			b.extrinsics = append(b.extrinsics, hexOf(x))
		}
		n.blocks[hash] = b
		return "1", []any{"ready", map[string]any{"broadcast": []string{"peer"}}, map[string]string{"inBlock": hash}}, true
	case "author_unwatchExtrinsic":
		return true, nil, true
	case "chain_getBlock":
		b, ok := n.blocks[str(0)]
		if !ok {
			return nil, nil, true
		}
		return map[string]any{"block": map[string]any{"header": map[string]string{"number": "0x65"}, "extrinsics": b.extrinsics}, "justifications": nil}, nil, true
	case "state_getStorage":
		b, ok := n.blocks[str(1)]
		if !ok || b.events == nil || str(0) != hexOf(keySystemEvents()) {
			return nil, nil, true
		}
		return hexOf(b.events), nil, true
	}
	return nil, nil, false
}
