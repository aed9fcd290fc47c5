package epoch

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/metrics"
)

// TestChainDownBacksOff: with the chain's RPC stopped, the loop logged
// "epoch: read head ... connection refused" on every tick, eight times a
// second, and kept polling at that rate. It now backs off to
// maxChainBackoff, logs the first failure and then one line a minute, and
// logs the recovery. The ticks run on the loop's own arithmetic, their
// times stepped as Loop's timer would space them.
func TestChainDownBacksOff(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	srv := httptest.NewServer(local.NewServer(w.chain, ""))
	c, err := local.Dial(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var logs logLines
	m := metrics.New()
	d, err := New(Config{Chain: c, Store: w.store, Key: w.keys[0], Champion: duel.Side{Hotkey: w.champ.Public()}, Logger: logs.logger(), Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const poll = 125 * time.Millisecond
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wait := d.chainRead(ctx, d.tick(ctx, l), poll, poll, now)
	if wait != poll {
		t.Fatalf("chain up: wait %v, want the poll %v", wait, poll)
	}
	srv.Close()
	start := now
	const ticks = 60
	var waits []time.Duration
	for range ticks {
		now = now.Add(wait)
		err := d.tick(ctx, l)
		if err == nil || !strings.Contains(err.Error(), "read head") {
			t.Fatalf("tick with the chain down: %v", err)
		}
		wait = d.chainRead(ctx, err, poll, wait, now)
		waits = append(waits, wait)
	}
	if waits[0] != 2*poll || wait != maxChainBackoff {
		t.Errorf("waits %v: want doubling from %v up to %v", waits, 2*poll, maxChainBackoff)
	}
	warned := strings.Count(logs.String(), `"level":"WARN"`)
	minutes := int(now.Sub(start) / time.Minute)
	if warned < 1 || warned > minutes+1 {
		t.Errorf("%d warnings for %d failed ticks over %v; want the first and one a minute:\n%s", warned, ticks, now.Sub(start), logs.String())
	}
	first := logs.find(t, "epoch: chain unreadable, backing off")
	if !strings.Contains(first["err"].(string), "read head") || first["retry_in"] != (2*poll).String() {
		t.Errorf("first warning %v", first)
	}
	if got := metricValue(t, m, "ledger_epoch_chain_errors_total"); got != ticks {
		t.Errorf("ledger_epoch_chain_errors_total = %v, want %d", got, ticks)
	}
	if wait := d.chainRead(ctx, nil, poll, wait, now.Add(wait)); wait != poll {
		t.Errorf("chain back: wait %v, want %v", wait, poll)
	}
	if back := logs.find(t, "epoch: chain readable again"); back["failures"] != float64(ticks) {
		t.Errorf("recovery logged as %v", back)
	}
}
