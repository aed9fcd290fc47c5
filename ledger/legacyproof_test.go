package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A store written before block format 2 may hold a fork proof of format 1,
// now withdrawn: its two blocks name no network, and may be one honest
// validator's blocks on two networks. The store reports it as unreadable,
// naming why, and does not call its validator an equivocator
// (Head.Equivocating, which the explorer, the node's status and the
// metrics show).
func TestWithdrawnForkProofMarksNoEquivocator(t *testing.T) {
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
		t.Errorf("a withdrawn fork proof marks %s as equivocating", p.key.Public())
	}
	n := 0
	for _, err := range r.ForkProofs() {
		var u *ledger.UnreadableForkProofError
		if !errors.As(err, &u) || !u.CID.Equals(pc) || !strings.Contains(err.Error(), "withdrawn") {
			t.Errorf("withdrawn proof %s read as %v", pc, err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d fork proofs listed, want the withdrawn one", n)
	}
}
