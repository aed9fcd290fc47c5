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
			w := newReviewWorld(t, cr, 23, []uint64{100, 100, 100, 100})
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
