package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/syncbuf"
)

var chainServing = regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+)`)

// serveChain runs `ledger chain serve` with args (on 127.0.0.1:0) in this
// process until the test ends, and returns the chain spec that reaches it.
func serveChain(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	done := startCommand(ctx, &out, append([]string{"chain", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("chain serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("chain serve did not stop")
		}
	})
	started, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	return "local+" + waitFor(t, started, &out, chainServing)
}
