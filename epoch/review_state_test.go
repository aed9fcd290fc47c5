package epoch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/duel"
)

// TestReviewStateAheadOfTheChainIsRefused: a state file whose last epoch
// lies past the chain's current one (a devnet reset under a kept data
// directory, a file copied from another network) makes resume return an
// epoch the chain reaches only after ~1000 tempos: Loop then skips every
// tick (head < next·tempo + settle) and runs no epoch, commits nothing
// and sets no weights, without a word. resume should refuse it (or start
// over from the chain) like the other unusable state files.
func TestReviewStateAheadOfTheChainIsRefused(t *testing.T) {
	w := newReviewWorld(t, false, 0, []uint64{100, 100})
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), StateFile)
	if err := saveState(path, state{Epoch: 1000, Champion: w.champ}); err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Chain: w.chain, Store: w.store, Key: w.keys[0], StateFile: path, Champion: duel.Side{}})
	if err != nil {
		t.Fatal(err)
	}
	const current = 9
	next, err := d.resume(ctx, current)
	if err == nil && next > current+1 {
		t.Errorf("the chain is in epoch %d, the state file says 1000 was computed: resume returns epoch %d to compute next, which the driver waits ~%d tempos for", current, next, next-current)
	}
}
