package epoch

import (
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestOverrideHealsASplit: validators 0-2 dethrone the champion in epoch
// 3's window, and their blocks never reach validator 3, which ends epoch 3
// with the old champion. The champion override brings it back once the
// weights of a majority of stake for epoch 3 are in effect at an epoch's
// first block: epoch 4 without commit-reveal, epoch 5 with a reveal
// period of 1 (committed in epoch 3, revealed in 4), when validator 3
// computes epoch 4 again from the contender. In the "retaken" cases the
// old champion wins its title back in duels started later, in epoch 4's
// window, and both windows' blocks reach validator 3 just after it
// computed epoch 3: only computing epoch 4 again, rather than taking the
// majority's winner of epoch 3 for epoch 4's, gets that right without
// commit-reveal; with it, validator 3 gets it right at epoch 4 already,
// since the dethrone's votes still stand then and the walk takes the two
// duels in the order they were started. Meanwhile the others never move.
func TestOverrideHealsASplit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cr      bool
		retaken bool
		healed  uint64
	}{
		{"set_weights", false, false, 4},
		{"commit_reveal", true, false, 5},
		{"set_weights_retaken", false, true, 4},
		{"commit_reveal_retaken", true, true, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newModelWorld(t, tc.cr, 0, []uint64{100, 100, 100, 100})
			late := copyStore(t, w.store)
			var dethrone, retake []ledger.StoredBlock
			for _, k := range w.keys[:3] {
				dethrone = append(dethrone, appendDuel(t, w.store, k, 23, w.result(t, k.Public(), duel.Win)))
			}
			if tc.retaken {
				for _, k := range w.keys[:3] {
					// started after the dethrone: the walk takes duels in time order
					r := playDuel(t, k.Public(), w.con, w.champ, recordtest.Anchor(33), 100, duel.Win)
					retake = append(retake, appendDuel(t, w.store, k, 33, r))
				}
			}
			ds := w.drivers(t, w.champ)
			var err error
			if ds[3], err = New(Config{Chain: w.chain, Store: late, Key: w.keys[3], Champion: w.champ}); err != nil {
				t.Fatal(err)
			}
			// want tells whether the contender holds the title after epoch k.
			want := func(i int, k uint64) bool {
				switch {
				case k < 3:
					return false
				case tc.retaken && k >= 4:
					return false
				case i == 3:
					return k >= tc.healed
				}
				return true
			}
			for k := uint64(1); k <= 6; k++ {
				for i, rep := range w.stepAll(t, ds, k) {
					if got := rep.Output.Champion.Hotkey == w.con.Hotkey; got != want(i, k) {
						t.Errorf("validator %d: epoch %d ends with the contender %v, want %v", i, k, got, want(i, k))
					}
				}
				if k == 3 && tc.retaken {
					for _, b := range append(dethrone, retake...) {
						if err := putBlock(t, w.store, late, b); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}
