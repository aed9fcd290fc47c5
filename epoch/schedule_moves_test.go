package epoch

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// movingSchedule is a chain whose reported schedule is its own moved later
// by shift blocks, as subtensor's moves since runtime 423 when an epoch
// is deferred or a tempo set.
type movingSchedule struct {
	chain.Chain
	shift atomic.Int64
}

func (m *movingSchedule) Params(ctx context.Context) (chain.Params, error) {
	p, err := m.Chain.Params(ctx)
	s := p.Schedule()
	p.EpochLength, p.EpochOffset = s.Length, s.Offset-m.shift.Load()
	return p, err
}

// TestLoopFollowsTheChainsSchedule: the loop runs each epoch at the
// boundary the chain reports at the head, not at the one it read when it
// started, and reveals by it. Tempo 10: epoch 1 runs at head 20 and
// commits in chain epoch 2; the chain's schedule then moves 10 blocks
// later, so that chain epoch 2 begins at 30. At head 21 the loop waits;
// the commit due in chain epoch 3 is not revealed at head 31, which the
// chain now puts in epoch 2; epoch 2 runs there, reading [20, 30).
func TestLoopFollowsTheChainsSchedule(t *testing.T) {
	c := newCatchUp(t)
	moving := &movingSchedule{Chain: c.w.chain}
	c.cfg.Chain = moving
	l := c.epochOneAtHead20(t, false)
	moving.shift.Store(10)
	c.advanceTo(t, 21)
	c.d.tick(c.ctx, l)
	if l.next != 2 || len(c.reports()) != 0 {
		t.Fatalf("at head 21 the loop ran epoch 2 (next %d, reports %+v); the chain's epoch 2 begins at 30", l.next, c.reports())
	}
	c.advanceTo(t, 31)
	c.d.tick(c.ctx, l)
	if l.next != 3 {
		t.Fatalf("after the tick at head 31 the next epoch is %d, want 3", l.next)
	}
	if r := c.reports(); len(r) != 1 || r[0].Epoch != 2 || r[0].Window != (Window{From: 20, To: 30}) || r[0].Revealed != 0 {
		t.Fatalf("reports: %+v; want epoch 2's, reading [20, 30), with no reveal", r)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 0 {
		t.Fatalf("weights in effect at head 31: %+v, %v; want none: the commit is due in chain epoch 3", rows, err)
	}
}
