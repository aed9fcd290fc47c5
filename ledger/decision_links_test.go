package ledger_test

import (
	"errors"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// TestPutRefusesDecisionThatIsNotDAGCBOR: a peer's block whose
// decision is tag 42 around a text string (no link: spec/encoding.md wants
// a byte string of 0x00 and a CID inside tag 42) breaks validity rule 7 of
// spec/ledger.md, so Put must refuse it with ErrInvalidBlock. It stores it
// (record.CheckDecision accepts tag 42 around anything).
func TestPutRefusesDecisionThatIsNotDAGCBOR(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	p := &peerChain{t: t, key: alice(t)}
	bad := []byte{0xd8, 0x2a, 0x61, 'x'} // 42("x")
	b := p.build(1, func(h *record.Header, objs map[cid.Cid][]byte) {
		c := codec.Sum(bad)
		objs[c] = bad
		h.Decisions = append(h.Decisions, codec.LinkTo(c))
	})
	res, err := s.Put(b.raw, b.objs)
	if !errors.Is(err, ledger.ErrInvalidBlock) {
		t.Fatalf("Put of a block whose decision is 42(\"x\"): %+v, %v; want ErrInvalidBlock", res, err)
	}
}
