package validator_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/internal/syncbuf"
)

// TestRunLogsChainDownOnce: with the chain's RPC down, Run read the
// contender queue again every Poll and said nothing; an operator saw a
// validator that ran no duel and no reason. It now warns at the first
// failure, naming the error, and not again on every retry.
func TestRunLogsChainDownOnce(t *testing.T) {
	t.Parallel()
	n := chainWith(t, []string{"Champion"})
	// The chain's own server, behind a switch that answers 503 for it as
	// a proxy in front of a stopped node does, counting the requests.
	var down atomic.Bool
	var refused atomic.Int64
	inner := local.NewServer(n.chain, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			refused.Add(1)
			http.Error(w, "chain node stopped", http.StatusServiceUnavailable)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	defer cancel()
	c, err := local.Dial(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var logs syncbuf.Buffer
	cfg := n.config(openStore(t, t.TempDir()), nil)
	cfg.Chain, cfg.Poll = c, time.Millisecond
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	v := newValidator(t, cfg)
	defer v.Close()
	down.Store(true)
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for refused.Load() < 50 {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with the chain down", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	out := logs.String()
	if got := strings.Count(out, "cannot read the contender queue"); got != 1 || !strings.Contains(out, "503") {
		t.Errorf("%d warnings for %d failed queue reads, want 1 naming the error:\n%s", got, refused.Load(), out)
	}
}
