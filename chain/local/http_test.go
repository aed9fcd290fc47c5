package local

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

const testToken = "test-admin-token"

// serve starts c's HTTP server on a loopback port.
func serve(t testing.TB, c *Chain) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, "listen", err)
	srv := httptest.NewUnstartedServer(NewServer(c, testToken))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestOverHTTP(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	var calls atomic.Int32
	c := newManual(t, d.genesis, t.TempDir(), stakeConsensus(&calls))
	url := serve(t, c)
	// Open goes through the chain spec and the registered backend.
	opened, err := chain.Open(ctx(t), "local+"+url)
	must(t, "open", err)
	defer opened.Close()
	cl := opened.(*Client)
	if cl.GenesisHash() != c.GenesisHash() {
		t.Fatal("genesis hash")
	}
	advance := func(n int) {
		if _, err := cl.Advance(ctx(t), testToken, n); err != nil {
			t.Fatalf("advance: %v", err)
		}
	}
	exercise(t, cl, advance, d, &calls)

	// Registration through the admin API needs the token.
	eve := hotkey(t, "//Eve")
	if _, err := cl.Register(ctx(t), "wrong", RegisterRequest{Hotkey: eve.Public(), Stake: 1}); err == nil {
		t.Fatal("registered with a wrong token")
	}
	if _, err := cl.Advance(ctx(t), "", 1); err == nil {
		t.Fatal("advanced without a token")
	}
	uid, err := cl.Register(ctx(t), testToken, RegisterRequest{Hotkey: eve.Public(), Stake: 1})
	if err != nil || uid != 4 {
		t.Fatalf("register: %d %v", uid, err)
	}
	must(t, "eve commits", cl.SetCommitment(ctx(t), eve, []chain.Data{chain.Raw([]byte("x"))}))
}

func post(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	must(t, "post", err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A forged request is refused on the wire with the bad_signature code.
func TestForgedRequestOverHTTP(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	c := newManual(t, d.genesis, "", nil)
	url := serve(t, c)
	tx, err := SignTx(c.GenesisHash(), d.charlie, 0, Call{Kind: CallSetCommitment, Netuid: 1, Fields: []chain.Data{chain.Raw([]byte("a"))}})
	must(t, "sign", err)
	tx.Call[len(tx.Call)-1] = 'b'
	body, _ := json.Marshal(tx)
	status, resp := post(t, url+"/v1/tx", body)
	if status != http.StatusUnauthorized || !strings.Contains(resp, `"bad_signature"`) {
		t.Fatalf("forged tx: %d %s", status, resp)
	}
	for _, bad := range []string{``, `{}`, `{"hotkey":"x"}`, `{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY","nonce":0,"call":"zz","signature":""}`, strings.Repeat(" ", maxBody+1)} {
		status, resp := post(t, url+"/v1/tx", []byte(bad))
		if status != http.StatusBadRequest || !strings.Contains(resp, `"bad_request"`) {
			t.Errorf("%.40q: %d %s", bad, status, resp)
		}
	}
	cl, err := Dial(ctx(t), url)
	must(t, "dial", err)
	if _, err := cl.Commitment(ctx(t), d.charlie.Public()); !isErr(err, chain.ErrNotFound) {
		t.Fatalf("after forged requests: %v", err)
	}
	tx.Signature[0] ^= 1
	_, err = cl.Submit(ctx(t), tx)
	wantErr(t, "client submit of a forged tx", err, chain.ErrBadSignature)
}

func TestDialRejects(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"ftp://127.0.0.1:1", "127.0.0.1:1", "http://"} {
		if _, err := Dial(context.Background(), u); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"protocol": 99}`))
	}))
	defer srv.Close()
	if _, err := Dial(ctx(t), srv.URL); err == nil || !strings.Contains(err.Error(), "protocol 99") {
		t.Fatalf("wrong protocol: %v", err)
	}
}

// An empty subnet's lists are empty JSON arrays, not null (spec/chain.md,
// "Protocol"), at the head and as of a block.
func TestEmptyListsOverHTTP(t *testing.T) {
	t.Parallel()
	g := newDevnet(t).genesis
	g.Neurons = nil
	c := newManual(t, g, "", nil)
	must(t, "advance", c.Advance(int(g.Tempo)+1))
	url := serve(t, c)
	get := func(path string) []byte {
		resp, err := http.Get(url + path)
		must(t, "get "+path, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		must(t, "read "+path, err)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		return b
	}
	for _, at := range []string{"", "?at=10"} {
		var m map[string]json.RawMessage
		must(t, "decode metagraph", json.Unmarshal(get("/v1/metagraph"+at), &m))
		if got := string(m["neurons"]); got != "[]" {
			t.Errorf("metagraph%s: neurons %s, want []", at, got)
		}
		for _, path := range []string{"/v1/commitments", "/v1/weights"} {
			if got := strings.TrimSpace(string(get(path + at))); got != "[]" {
				t.Errorf("%s%s: %s, want []", path, at, got)
			}
		}
	}
}
