package verify_test

import (
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestFromHeightParentIsTheChainsBlock: a --from H audit takes the state
// before H from the block the height index names at H-1, which must be
// the validator's block at height H-1. Here the validator signed a block
// at height 3 whose prev is its block at height 1 (heights 2 skipped),
// and the index names block 1 at height 2: every check of the block at 3
// passes against that state, and only the parent's own height tells.
func TestFromHeightParentIsTheChainsBlock(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, verifytest.Spec{Validators: 1, Blocks: 2, PerBlock: 5, Envs: []string{"mult8"}})
	k := ks[0]
	v := k.Public()
	b1, _ := stored(t, dir, k, 1)
	hd := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: v, Height: 3, Prev: codec.LinkTo(b1.CID),
		TimeMS: b1.TimeMS, Anchor: b1.Anchor, Checkpoint: b1.Checkpoint}
	_, raw, c3, err := record.Sign(hd, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		ledgertest.OverwriteObject(dir, c3, raw),
		ledgertest.SetBlockAt(dir, v, 2, b1.CID),
		ledgertest.SetBlockAt(dir, v, 3, c3),
		ledgertest.SetHead(dir, v, c3),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if rep := verifyDir(t, dir, verify.StoreScope{}); rep.OK {
		t.Fatal("the whole chain, which skips height 2, verifies")
	}
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 3}), k, 2, cid.Undef, -1,
		"the height index names block "+b1.CID.String()+" at height 2, a block of "+v.String()+" at height 1")
}
