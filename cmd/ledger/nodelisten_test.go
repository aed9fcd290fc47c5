package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/internal/syncbuf"
)

// TestNodeRefusesAListenAddressInUse: a second node on the port a node
// listens on started (go-libp2p's TCP listener shares ports), and peers
// dialing the first node's address then reached either. It must fail to
// start, exit 2, saying the address is in use and naming it.
func TestNodeRefusesAListenAddressInUse(t *testing.T) {
	t.Parallel()
	ctx, nodeCtx, stop := nodeContexts(t)
	dir := t.TempDir()
	var out syncbuf.Buffer
	done := startNode(nodeCtx, &out, "--data", filepath.Join(dir, "a"), "--listen", "/ip4/127.0.0.1/tcp/0")
	addr := waitFor(t, ctx, &out, regexp.MustCompile(`listening on (/ip4/127\.0\.0\.1/tcp/\d+)/p2p/`))

	second := filepath.Join(dir, "b")
	code, msg := runStopped(t, "node", "--data", second, "--listen", addr, "--log-level", "error")
	if code != exitUsage || !strings.Contains(msg, "address already in use") || !strings.Contains(msg, addr) {
		t.Errorf("second node on %s: exit %d, %q; want exit 2 saying address already in use, naming %s", addr, code, msg, addr)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("first node: %v", err)
	}
}
