package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestHealthzAsSpecified: the node's /healthz answered text/plain "ok",
// while spec/api.md, which the explorer on the same endpoint follows,
// gives {"ok": true, "validators": n}. It now answers that, counting the
// chains the store holds.
func TestHealthzAsSpecified(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := nodetest.New(t, 1, nodetest.Options{Tune: func(_ int, cfg *node.Config) {
		cfg.StatusAddr = "127.0.0.1:0"
	}})
	n := c.Start(0)
	health := func() node.Health {
		t.Helper()
		resp, err := http.Get("http://" + n.StatusAddr() + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("/healthz: %s, Content-Type %q", resp.Status, ct)
		}
		var h node.Health
		dec := json.NewDecoder(resp.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			t.Fatalf("/healthz body: %v", err)
		}
		return h
	}
	if h := health(); h != (node.Health{OK: true, Validators: 0}) {
		t.Errorf("empty store: /healthz %+v", h)
	}
	appendBlocks(t, ctx, c, 0, 0, 1, 2, 0)
	if h := health(); h != (node.Health{OK: true, Validators: 1}) {
		t.Errorf("one chain: /healthz %+v", h)
	}
}
