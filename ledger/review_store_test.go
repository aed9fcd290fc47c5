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

// TestReviewRefusedRootLeavesTheChainIntact: a block refused for its
// checkpoint root must not change what the next block is checked
// against. Extending a log of 3 leaves by one merges the clone's
// frontier nodes, which the chain's own tree shared: the refused block
// rewrote the stored chain's frontier, and the valid block 1 was then
// refused too (or a block built on the damaged frontier accepted).
func TestReviewRefusedRootLeavesTheChainIntact(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	p := &peerChain{t: t, key: alice(t)}
	b0 := p.build(3, nil)
	p.accept(b0)
	if _, err := s.Put(b0.raw, b0.objs); err != nil {
		t.Fatal(err)
	}
	bad := p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.Checkpoint.Root[0] ^= 1 })
	if _, err := s.Put(bad.raw, bad.objs); !errors.Is(err, ledger.ErrBadCheckpoint) {
		t.Fatalf("bad root: %v", err)
	}
	good := p.build(1, nil)
	if _, err := s.Put(good.raw, good.objs); err != nil {
		t.Fatalf("the valid block after a refused one: %v", err)
	}
	p.accept(good)
	next := p.build(2, nil)
	if _, err := s.Put(next.raw, next.objs); err != nil {
		t.Fatalf("the block after: %v", err)
	}
	if n := checkChain(t, s, p.key.Public()); n != 6 {
		t.Fatalf("log of %d transcripts, want 6", n)
	}
}
