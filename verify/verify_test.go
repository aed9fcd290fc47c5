package verify_test

import (
	"testing"

	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

func TestCleanLedgerVerifies(t *testing.T) {
	t.Parallel()
	dir, _ := build(t, small)
	rep := verifyDir(t, dir, verify.StoreScope{})
	if !rep.OK || len(rep.Failures) != 0 {
		t.Fatalf("clean ledger: %+v", rep.Failures)
	}
	want := small.Validators * small.Blocks * small.PerBlock
	if rep.Chains != small.Validators || rep.Blocks != small.Validators*small.Blocks || rep.Transcripts != want {
		t.Fatalf("counts: %+v", rep)
	}
	if rep.Reexecuted != want || rep.SeedsDerived != want || rep.SeedsUnverified != 0 {
		t.Fatalf("reexecuted %d, seeds derived %d unverified %d, want %d", rep.Reexecuted, rep.SeedsDerived, rep.SeedsUnverified, want)
	}
}

// TestSeedsAcrossBlocks: counters restart at every anchor and run past
// the search window's first fill within one block.
func TestSeedsAcrossBlocks(t *testing.T) {
	t.Parallel()
	dir, _ := build(t, verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 150, Envs: []string{"mult8"}})
	rep := verifyDir(t, dir, verify.StoreScope{}) // strict seeds
	if !rep.OK || rep.SeedsDerived != 450 || rep.SeedsUnverified != 0 {
		t.Fatalf("%+v", rep)
	}
}
