package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/syncbuf"
)

// serveChain runs `ledger chain serve` with args (on 127.0.0.1:0) in this
// process until the test ends, and returns the chain spec that reaches it.
func serveChain(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		root := newRootCmd()
		root.SetArgs(append([]string{"chain", "serve", "--listen", "127.0.0.1:0"}, args...))
		root.SetOut(&out)
		root.SetErr(&out)
		done <- root.ExecuteContext(ctx)
	}()
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
	addr := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			return "local+" + m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("chain serve stopped: %v: %s", err, out.String())
		default:
		}
	}
	t.Fatalf("chain serve did not start: %s", out.String())
	return ""
}
