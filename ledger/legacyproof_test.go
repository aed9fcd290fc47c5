package ledger_test

import (
	"bytes"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A store written before block format 2 may hold a fork proof of format 1:
// its two blocks name no network, and may be one honest validator's blocks
// on two networks. The store lists it as the valid record it is, of format
// 1 and proving no equivocation, and does not call its validator an
// equivocator (Head.Equivocating, which the explorer, the node's status
// and the metrics show). It was listed as unreadable.
func TestFormat1ForkProofMarksNoEquivocator(t *testing.T) {
	t.Parallel()
	dir := ledgertest.UnboundStore(t)
	p := &peerChain{t: t, key: alice(t)}
	b0 := p.build(0, asFormat1)
	other := p.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
		asFormat1(h, objs)
		h.TimeMS++
	})
	if _, err := ledgertest.LegacyChain(dir, b0.raw); err != nil {
		t.Fatal(err)
	}
	pc, err := ledgertest.LegacyForkProof(dir, b0.raw, other.raw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.Head(p.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if h.Equivocating {
		t.Errorf("a format-1 fork proof marks %s as equivocating", p.key.Public())
	}
	n := 0
	for sp, err := range r.ForkProofs() {
		n++
		if err != nil {
			t.Fatalf("format-1 proof %s read as %v", pc, err)
		}
		if !sp.CID.Equals(pc) || sp.Format != record.ForkProofFormatV1 || sp.ProvesEquivocation() || sp.Validator != p.key.Public() || sp.Height != 0 {
			t.Errorf("listed proof %s of format %d (proves equivocation: %v) of %s at height %d, want %s of format 1, proving none",
				sp.CID, sp.Format, sp.ProvesEquivocation(), sp.Validator, sp.Height, pc)
		}
		if raw, err := r.Object(pc); err != nil || !bytes.Equal(raw, sp.Raw) {
			t.Errorf("listed bytes are not the stored ones (err %v)", err)
		}
	}
	if n != 1 {
		t.Errorf("%d fork proofs listed, want the format-1 one", n)
	}
}
