package epoch

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestDethronePending: what a validator's duel loop reads of the epochs
// (validator.ConsensusView). Validator 2 (250 of the 550 stake) records a
// dethrone in epoch 1; alone it is not enough, and it stays pending while
// its vote stands. Once the validators holding the rest record that the
// champion held, no vote can carry it, and once it no longer stands it
// cannot either.
func TestDethronePending(t *testing.T) {
	ctx := context.Background()
	champ := func(w *world) duel.Side { return duel.Side{Hotkey: w.champ.Public()} }
	con := func(w *world) duel.Side { return duel.Side{Hotkey: w.con.Public()} }

	w := newBareWorld(t, false, false)
	d := w.drivers(t)[3]
	if _, ok := d.ConsensusChampion(); ok || !d.DethronePending(champ(w), con(w), 3) {
		t.Fatal("before any epoch: a consensus champion, or a dethrone not pending")
	}
	w.recordDuel(t, 2, recordtest.Anchor(3), false)
	if err := w.chain.Advance(2*tempo + 2); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if c, ok := d.ConsensusChampion(); !ok || !sameSide(c, champ(w)) {
		t.Fatalf("epoch 1: consensus champion %v %v, want the champion held", c.Hotkey, ok)
	}
	if !d.DethronePending(champ(w), con(w), 3) {
		t.Error("epoch 1: the dethrone of epoch 1, alone, is not pending")
	}
	// Epoch 24 is the last whose successor still counts epoch 1's votes.
	for _, c := range []struct {
		k    uint64
		want bool
	}{{23, true}, {24, false}} {
		k, want := c.k, c.want
		head, err := w.chain.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.chain.Advance(int((k+1)*tempo + 2 - head.Number)); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Step(ctx, k); err != nil {
			t.Fatal(err)
		}
		if got := d.DethronePending(champ(w), con(w), 3); got != want {
			t.Errorf("after epoch %d: a dethrone started in epoch 1 pending %v, want %v", k, got, want)
		}
		if !d.DethronePending(champ(w), con(w), uint64(k)*tempo) {
			t.Errorf("after epoch %d: a dethrone started in it is not pending", k)
		}
	}

	// The others, 300 of the stake, saw the champion hold.
	w = newBareWorld(t, false, false)
	d = w.drivers(t)[3]
	w.recordDuel(t, 2, recordtest.Anchor(3), false)
	for _, i := range []int{0, 1, 3} {
		w.recordDuel(t, i, recordtest.Anchor(4), true)
	}
	if err := w.chain.Advance(2*tempo + 2); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d.DethronePending(champ(w), con(w), 3) {
		t.Error("a dethrone more than half of the stake voted against is pending")
	}
	if !d.DethronePending(con(w), champ(w), 3) {
		t.Error("a pair no one voted on is not pending")
	}
}
