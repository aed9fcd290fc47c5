package epoch

import (
	"math"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestFormat1ForkProofIsNoEquivocation: a store written before block
// format 2 may hold a fork proof of format 1, whose blocks name no network
// and may be an honest validator's on two networks. Equivocators leaves
// its validator in every epoch; it failed on the proof, which the store
// could not read then.
func TestFormat1ForkProofIsNoEquivocation(t *testing.T) {
	t.Parallel()
	dir := ledgertest.UnboundStore(t)
	k := recordtest.Hotkey(t, "//Alice")
	sign := func(timeMS int64) []byte { return recordtest.BlockV1(t, k, timeMS) }
	b0 := sign(1)
	if _, err := ledgertest.LegacyChain(dir, b0); err != nil {
		t.Fatal(err)
	}
	if _, err := ledgertest.LegacyForkProof(dir, b0, sign(2)); err != nil {
		t.Fatal(err)
	}
	s, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	forked, err := Equivocators(s, math.MaxUint64)
	if err != nil {
		t.Fatalf("Equivocators on a store holding a format-1 fork proof: %v", err)
	}
	if len(forked) != 0 {
		t.Errorf("a format-1 fork proof makes equivocators %v", sortedKeys(forked))
	}
}
