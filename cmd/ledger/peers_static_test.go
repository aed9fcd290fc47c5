package main

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/node"
)

// TestPeersListsUnreachableStaticPeers: a --peer the node cannot reach
// showed nowhere (`ledger peers` lists connected peers) and its failed
// dials were logged at DEBUG. The node warns of it, and `ledger peers`
// lists it with the last dial's error, from the status endpoint and from
// status.json alike.
func TestPeersListsUnreachableStaticPeers(t *testing.T) {
	t.Parallel()
	ctx, nodeCtx, stop := nodeContexts(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const id = "12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA"
	static := fmt.Sprintf("/ip4/127.0.0.1/tcp/%d/p2p/%s", ln.Addr().(*net.TCPAddr).Port, id)
	ln.Close()
	data := filepath.Join(t.TempDir(), "node")
	var out syncbuf.Buffer
	done := startNode(nodeCtx, &out, "--data", data, "--listen", "/ip4/127.0.0.1/tcp/0", "--peer", static,
		"--status", "127.0.0.1:0", "--log-level", "warn", "--log-format", "text")
	statusAddr := waitFor(t, ctx, &out, regexp.MustCompile(`status endpoint http://(\S+)/status`))
	waitFor(t, ctx, &out, regexp.MustCompile(`level=WARN msg="(p2p: cannot reach static peer)[^\n]*peer=`+id))
	for {
		js, _, err := runLedger(t, "", "peers", "--status", statusAddr, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var st node.Status
		if err := json.Unmarshal([]byte(js), &st); err != nil {
			t.Fatalf("peers --json: %v\n%s", err, js)
		}
		if len(st.StaticPeersDown) == 1 && st.StaticPeersDown[0].LastError != "" {
			if p := st.StaticPeersDown[0]; p.ID.String() != id || p.Since.IsZero() || p.FailedDials == 0 {
				t.Errorf("static peer listed as %+v; want %s, since when, its failed dials", p, id)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the status never listed the unreachable static peer with its error:\n%s", js)
		case <-time.After(50 * time.Millisecond):
		}
	}
	text, _, err := runLedger(t, "", "peers", "--status", statusAddr)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`static peers not connected: 1\n\s+PEER\s+SINCE\s+FAILED DIALS\s+LAST ERROR\n\s+` + id + `\s+\S+\s+\d+\s+.*connection refused`).MatchString(text) {
		t.Errorf("peers does not list the unreachable static peer with its error:\n%s", text)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := node.ReadStatusFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.StaticPeersDown) != 1 || !strings.Contains(st.StaticPeersDown[0].LastError, "connection refused") {
		t.Errorf("status.json lists static peers down %+v; want %s with its dial's error", st.StaticPeersDown, id)
	}
}
