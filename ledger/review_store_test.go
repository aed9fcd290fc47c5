package ledger_test

import (
	"errors"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestReviewTranscriptShapedDecisionIsNotCorruption: decisions are opaque
// DAG-CBOR, so a peer may link as a decision the bytes of a transcript
// that names another validator's challenge and miner but is not in that
// validator's log. Reading it as a transcript must say it is not in a log
// (ErrNotFound), not that the store is inconsistent (ErrCorrupt): the
// store is fine, and an explorer or a prover would report damage on a
// peer's say-so.
func TestReviewTranscriptShapedDecisionIsNotCorruption(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	alicePeer := &peerChain{t: t, key: alice(t)}
	b0 := alicePeer.build(1, nil)
	if _, err := s.Put(b0.raw, b0.objs); err != nil {
		t.Fatal(err)
	}
	// Bob's block carries a forged copy of Alice's transcript as a decision.
	forged := recordtest.Transcript(alice(t).Public(), 0, 0)
	forged.Reward = -forged.Reward - 1
	raw, fc, err := forged.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if fc.Equals(b0.ts[0]) {
		t.Fatal("the forged transcript is the stored one")
	}
	bobPeer := &peerChain{t: t, key: bob(t)}
	bb := bobPeer.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
		objs[fc] = raw
		h.Decisions = append(h.Decisions, codec.LinkTo(fc))
	})
	if _, err := s.Put(bb.raw, bb.objs); err != nil {
		t.Fatalf("a block with a transcript-shaped decision: %v", err)
	}
	_, err = s.Transcript(fc)
	if !errors.Is(err, ledger.ErrNotFound) || errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("reading the decision as a transcript: %v, want ErrNotFound and not ErrCorrupt", err)
	}
	if st, err := s.Transcript(b0.ts[0]); err != nil || st.Ref.Leaf != 0 {
		t.Fatalf("the logged transcript: %+v %v", st.Ref, err)
	}
}
