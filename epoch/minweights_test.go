package epoch

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/chain/local"
)

// TestWeightsMeetMinAllowedWeights: a subnet whose min_allowed_weights is
// 3 refuses a winner-takes-all row of one uid (subtensor's check_length;
// under commit-reveal, at the reveal). The node pads its row with
// zero-valued uids: the chain takes it, and the winner the chain's
// weights give is still the epoch's.
func TestWeightsMeetMinAllowedWeights(t *testing.T) {
	for _, cr := range []bool{false, true} {
		name := "set_weights"
		if cr {
			name = "commit_reveal"
		}
		t.Run(name, func(t *testing.T) {
			w := newModelWorld(t, cr, 0, []uint64{100, 100}, func(g *local.Genesis) { g.MinAllowedWeights = 3 })
			ctx := context.Background()
			ds := w.drivers(t, w.champ)
			last := uint64(1)
			if cr {
				last = 2 // epoch 1's commit is revealed in epoch 2
			}
			for k := uint64(1); k <= last; k++ {
				for i, rep := range w.stepAll(t, ds, k) {
					if rep.Weights == nil || len(rep.Weights.UIDs) != 3 || rep.Weights.Values[1] != 0 || rep.Weights.Values[2] != 0 {
						t.Fatalf("validator %d epoch %d wrote %+v, want the winner's uid and two zero-valued ones", i, k, rep.Weights)
					}
					if len(rep.Unrevealed) != 0 {
						t.Fatalf("validator %d epoch %d: commits of epochs %v not revealed", i, k, rep.Unrevealed)
					}
				}
			}
			rows, err := w.chain.Weights(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(ds) {
				t.Fatalf("%d weight rows in effect, want one per validator: %+v", len(rows), rows)
			}
			got, ok, err := ChainWinner(ctx, w.chain)
			if err != nil || !ok || got.Hotkey != w.champ.Hotkey {
				t.Errorf("the chain's weights give %s (%v, %v), want the champion %s", got.Hotkey, ok, err, w.champ.Hotkey)
			}
		})
	}
}
