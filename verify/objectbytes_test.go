package verify_test

import (
	"fmt"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestBlockOverObjectBytesFails: a signed block whose transcripts and
// decisions total more than record.MaxBlockObjectBytes (spec/ledger.md,
// version 3) fails verify, though every object is well formed. The store
// refuses to hold one, so the core is driven directly.
func TestBlockOverObjectBytesFails(t *testing.T) {
	t.Parallel()
	k := verifytest.Key(3)
	v := k.Public()
	tr, err := verifytest.Transcript(v, recordtest.Anchor(1), "mult8", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, c, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	objs := map[cid.Cid][]byte{c: raw}
	hd := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: v, TimeMS: 1, Anchor: recordtest.Anchor(1),
		Transcripts: []codec.Link{codec.LinkTo(c)}, Checkpoint: record.CheckpointOf([]cid.Cid{c})}
	for i := 0; i <= record.MaxBlockObjectBytes/record.MaxDecisionBytes; i++ {
		pad := make([]byte, record.MaxDecisionBytes-64)
		copy(pad, fmt.Sprint(i))
		d, err := codec.Marshal(map[string]any{"pad": pad})
		if err != nil {
			t.Fatal(err)
		}
		dc := codec.Sum(d)
		objs[dc] = d
		hd.Decisions = append(hd.Decisions, codec.LinkTo(dc))
	}
	_, braw, bc, err := record.Sign(hd, k)
	if err != nil {
		t.Fatal(err)
	}
	vf := verify.New(verify.Options{Challenges: verify.NewMemSet()})
	if err := vf.StartChain(v, verify.Genesis()); err != nil {
		t.Fatal(err)
	}
	vf.Block(braw, bc, func(c cid.Cid) ([]byte, error) { return objs[c], nil })
	onlyFailure(t, vf.Report(), k, 0, bc, -1, "more than 67108864 bytes")
}
