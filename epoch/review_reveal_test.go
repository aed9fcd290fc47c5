package epoch

import (
	"context"
	"testing"
)

// TestReviewDethroneSticksUnderCommitReveal: a dethrone that every
// validator agreed on in epoch 3 must hold in epoch 4, when no duel was
// run. Without commit-reveal it does. With commit-reveal (reveal period 1)
// the weights in effect at epoch 4's first block are those revealed in
// epoch 3, i.e. committed in epoch 2, naming epoch 2's winner: the chain
// "majority" override (spec/vtrust.md) then starts epoch 4 from the old
// champion and the dethrone is undone; epoch 5 reads epoch 3's reveal and
// flips back, and so on.
func TestReviewDethroneSticksUnderCommitReveal(t *testing.T) {
	for _, cr := range []bool{false, true} {
		name := "set_weights"
		if cr {
			name = "commit_reveal"
		}
		t.Run(name, func(t *testing.T) {
			w := newModelWorld(t, cr, 23, []uint64{100, 100, 100, 100})
			ctx := context.Background()
			ds := w.drivers(t, w.champ)
			want := map[uint64]string{1: "champion", 2: "champion", 3: "contender", 4: "contender", 5: "contender", 6: "contender"}
			for k := uint64(1); k <= 6; k++ {
				head, _ := w.chain.Head(ctx)
				if err := w.chain.Advance(int(k*tempo + 1 - head.Number)); err != nil {
					t.Fatal(err)
				}
				for i, d := range ds {
					rep, err := d.Step(ctx, k)
					if err != nil {
						t.Fatalf("validator %d epoch %d: %v", i, k, err)
					}
					got := "champion"
					if rep.Output.Champion.Hotkey == w.con.Hotkey {
						got = "contender"
					}
					if got != want[k] {
						t.Errorf("validator %d: epoch %d ends with the %s, want the %s", i, k, got, want[k])
					}
				}
			}
		})
	}
}

// TestReviewLateStepRevealsInTheCommitsEpoch: with the default settle of
// 1 block (tempo 10), Loop runs epoch k with the head anywhere in
// [k·T+1, (k+1)·T+1), so epoch 1 may run at head 20, already chain epoch
// 2. Its commit is then in chain epoch 2 and due in epoch 3, but the driver
// reveals it in its epoch 2 (k + RevealPeriod): the chain refuses it as too
// early, the reveal error aborts epoch 2 (no commit, no champion update)
// and the commit is dropped, so it is never revealed.
func TestReviewLateStepRevealsInTheCommitsEpoch(t *testing.T) {
	w := newModelWorld(t, true, 3, []uint64{100, 100, 100, 100})
	ctx := context.Background()
	d := w.drivers(t, w.champ)[0]
	advanceTo := func(n uint64) {
		t.Helper()
		head, _ := w.chain.Head(ctx)
		if err := w.chain.Advance(int(n - head.Number)); err != nil {
			t.Fatal(err)
		}
	}
	advanceTo(20) // (20 - settle 1) / 10 = 1: Loop runs epoch 1 here
	if rep, err := d.Step(ctx, 1); err != nil || !rep.Committed {
		t.Fatalf("epoch 1: committed %v, %v", rep.Committed, err)
	}
	advanceTo(21) // Loop runs epoch 2
	if _, err := d.Step(ctx, 2); err != nil {
		t.Errorf("epoch 2: %v", err)
	}
	advanceTo(31) // Loop runs epoch 3
	rep, err := d.Step(ctx, 3)
	if err != nil {
		t.Errorf("epoch 3: %v", err)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Errorf("no weights in effect after epoch 3 (revealed %d): the commit of epoch 1 was never revealed", rep.Revealed)
	}
}
