package verify_test

import (
	"testing"

	"github.com/affine-ledger/ledger/ledger/record"
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
	if rep.Reexecuted != want || rep.SeedsExact != want || rep.SeedsDerived != 0 || rep.SeedsUnverified != 0 {
		t.Fatalf("reexecuted %d, seeds exact %d derived %d unverified %d, want %d exact", rep.Reexecuted, rep.SeedsExact, rep.SeedsDerived, rep.SeedsUnverified, want)
	}
}

// A ledger written before transcripts recorded their seeds (format 1)
// still verifies, its seeds placed by the window search.
func TestFormat1LedgerVerifies(t *testing.T) {
	t.Parallel()
	spec := small
	spec.Format = record.TranscriptFormatV1
	dir, _ := build(t, spec)
	rep := verifyDir(t, dir, verify.StoreScope{}) // strict seeds
	want := spec.Validators * spec.Blocks * spec.PerBlock
	if !rep.OK || rep.Transcripts != want || rep.Reexecuted != want || rep.SeedsDerived != want || rep.SeedsExact != 0 || rep.SeedsUnverified != 0 {
		t.Fatalf("format-1 ledger: %+v", rep)
	}
}

// TestSeedsAcrossBlocks: in format 1, counters restart at every anchor and
// run past the search window's first fill within one block; in format 2
// a duel's counters run on across blocks, which the search could not
// follow.
func TestSeedsAcrossBlocks(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 150, Envs: []string{"mult8"}, Format: record.TranscriptFormatV1}
	dir, _ := build(t, spec)
	rep := verifyDir(t, dir, verify.StoreScope{}) // strict seeds
	if !rep.OK || rep.SeedsDerived != 450 || rep.SeedsUnverified != 0 {
		t.Fatalf("%+v", rep)
	}
	spec.Format = 0
	spec.Start = func(int) int { return 0 }
	dir, _ = build(t, spec)
	rep = verifyDir(t, dir, verify.StoreScope{})
	if !rep.OK || rep.SeedsExact != 450 || rep.SeedsDerived != 0 {
		t.Fatalf("one duel over three blocks: %+v", rep)
	}
}
