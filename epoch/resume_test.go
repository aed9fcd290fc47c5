package epoch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/duel"
)

// TestStateAheadOfTheChainIsRefused: a state file whose last epoch lies
// past the chain's current one (a devnet reset under a kept data
// directory, a file copied from another network) would make the driver
// wait ~1000 tempos for its next epoch, computing, committing and setting
// nothing without a word. resume refuses it, naming the file and both
// epochs, like the other unusable state files.
func TestStateAheadOfTheChainIsRefused(t *testing.T) {
	w := newModelWorld(t, false, 0, []uint64{100, 100})
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
	if err == nil {
		t.Fatalf("the chain is in epoch %d, the state file says 1000 was computed: resume returns epoch %d to compute next, want an error", current, next)
	}
	for _, want := range []string{path, "1000", fmt.Sprint(current)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// The current epoch itself may have been computed before a restart.
	if err := saveState(path, state{Epoch: current, Champion: w.champ}); err != nil {
		t.Fatal(err)
	}
	if next, err := d.resume(ctx, current); err != nil || next != current+1 {
		t.Errorf("state at the current epoch: next %d, %v; want %d", next, err, current+1)
	}
}
