package epoch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// lostRevealAnswer is a chain that applies the next lose reveals but
// loses their answers, as when the connection drops after sending: the
// driver sees the chain unjudged, and its send again is refused, the
// commit no longer pending.
type lostRevealAnswer struct {
	chain.Chain
	mu   sync.Mutex
	lose int
}

func (l *lostRevealAnswer) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	if err := l.Chain.RevealWeights(ctx, k, r); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lose == 0 {
		return nil
	}
	l.lose--
	return errors.New("chain: connection reset by peer")
}

// unrevealedFailures are the failures logged for commits dropped
// unrevealed (ErrUnrevealed).
func unrevealedFailures(c *catchUp) []failure {
	var out []failure
	for _, f := range c.logs.failed() {
		if strings.Contains(f.err, ErrUnrevealed.Error()) {
			out = append(out, f)
		}
	}
	return out
}

// revealReports sums the reveals the reports count and lists the epochs
// they report unrevealed.
func revealReports(c *catchUp) (revealed int, unrevealed []uint64) {
	for _, r := range c.reports() {
		revealed += r.Revealed
		unrevealed = append(unrevealed, r.Unrevealed...)
	}
	return revealed, unrevealed
}

// TestAppliedRevealWithLostAnswerIsTaken: the chain took epoch 1's reveal
// but its answer was lost; the driver sent it again in the same chain
// epoch, its only one (reveal period 1), and the chain refused it, the
// commit no longer pending. That refusal in the last epoch of the window
// dropped the reveal and reported epoch 1 unrevealed, though its weights
// took effect. The chain's row for the validator's uid, the reveal's
// weights, and the commit gone say the earlier send was applied: it
// counts as taken.
func TestAppliedRevealWithLostAnswerIsTaken(t *testing.T) {
	c := newCatchUp(t)
	lost := &lostRevealAnswer{Chain: c.w.chain}
	c.cfg.Chain = lost
	l := c.epochOneAtHead20(t, false) // its commit is due in chain epoch 3
	lost.mu.Lock()
	lost.lose = 1
	lost.mu.Unlock()
	for _, h := range []uint64{31, 32, 40} {
		c.advanceTo(t, h)
		c.d.tick(c.ctx, l)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect: %+v, %v; want epoch 1's row", rows, err)
	}
	if f := unrevealedFailures(c); len(f) != 0 {
		t.Errorf("epochs reported unrevealed: %+v; epoch 1's reveal took effect", f)
	}
	if revealed, unrevealed := revealReports(c); revealed < 1 || len(unrevealed) != 0 {
		t.Errorf("reports count %d reveals and %v unrevealed; want epoch 1's reveal counted taken", revealed, unrevealed)
	}
}

// TestAppliedRevealOfUnknownCommitIsTaken: as above, but the commit's
// answer was lost too. The chain's last_update of the validator's uid,
// the block of the last commit it took, lies between the heads read
// before and after the commit: that commit was taken, and its reveal by
// the send whose answer was lost.
func TestAppliedRevealOfUnknownCommitIsTaken(t *testing.T) {
	c := newCatchUp(t)
	lost := &lostRevealAnswer{Chain: lostCommitAnswer{c.w.chain}, lose: 1}
	c.cfg.Chain = lost
	d, err := New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.d = d
	c.advanceTo(t, 9)
	l, err := d.start(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []uint64{20, 31, 32} { // epoch 1 commits in chain epoch 2, due in 3
		c.advanceTo(t, h)
		d.tick(c.ctx, l)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect: %+v, %v; want epoch 1's row", rows, err)
	}
	if f := unrevealedFailures(c); len(f) != 0 {
		t.Errorf("epochs reported unrevealed: %+v; epoch 1's reveal took effect", f)
	}
}
