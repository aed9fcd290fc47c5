package ledger_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
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

// TestReviewCloseWithQueuedRequests: closing the store while requests are
// queued and arriving answers every one, and a reopened store holds
// exactly the acknowledged transcripts, at the leaves their receipts
// named.
func TestReviewCloseWithQueuedRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k, ledger.WithMaxBatch(3))
	const n = 200
	type answer struct {
		c   cid.Cid
		r   ledger.Receipt
		err error
	}
	answers := make(chan answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := uint64(0); i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := recordtest.Transcript(v, i, 0)
			_, c, err := tr.Encode()
			if err != nil {
				t.Error(err)
				return
			}
			<-start
			r, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{tr}, nil)
			answers <- answer{c, r, err}
		}()
	}
	// Queued before Close: Close commits them.
	const queued = 100
	futures := make([]ledger.Future, queued)
	qc := make([]cid.Cid, queued)
	for i := range uint64(queued) {
		tr := recordtest.Transcript(v, n+i, 0)
		_, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		qc[i] = c
		futures[i] = a.Add(context.Background(), recordtest.Anchor(1), []record.Transcript{tr}, nil)
	}
	close(start)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(answers)
	acked := map[uint64]cid.Cid{}
	for i, f := range futures {
		r, err := f()
		if err != nil {
			t.Fatalf("request %d, queued before Close: %v", i, err)
		}
		acked[r.FirstLeaf] = qc[i]
	}
	var refused []cid.Cid
	for a := range answers {
		if a.err != nil {
			if !errors.Is(a.err, ledger.ErrClosed) {
				t.Fatalf("a request refused with %v, want ErrClosed", a.err)
			}
			refused = append(refused, a.c)
			continue
		}
		acked[a.r.FirstLeaf] = a.c
	}
	size := checkAcknowledged(t, dir, v, acked)
	if size != uint64(len(acked)) {
		t.Fatalf("the log holds %d transcripts, %d were acknowledged", size, len(acked))
	}
	s = open(t, dir)
	defer s.Close()
	for _, c := range refused {
		if _, err := s.Transcript(c); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("a refused request's transcript: %v", err)
		}
	}
	t.Logf("%d acknowledged, %d refused", len(acked), len(refused))
}

// TestReviewCancelledRequestLeavesNoTrace: a request whose context ends
// before it is taken into a block writes nothing and frees its challenge.
func TestReviewCancelledRequestLeavesNoTrace(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	tr := recordtest.Transcript(v, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 { // Add's select may take either ready case
		if _, err := a.Append(ctx, recordtest.Anchor(1), []record.Transcript{tr}, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled request: %v", err)
		}
	}
	if _, err := s.Head(v); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("head after cancelled requests only: %v", err)
	}
	r, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{tr}, nil)
	if err != nil || r.Block.Height != 0 || r.FirstLeaf != 0 {
		t.Fatalf("the challenge after its cancelled requests: %+v %v", r, err)
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

// TestReviewThirdBlockAfterRestart: a third different block at a height
// that already has a fork proof, put after a restart, adds its own proof
// beside the first, keeps the chain's block, and leaves 'e' naming the
// first proof (spec/store.md).
func TestReviewThirdBlockAfterRestart(t *testing.T) {
	t.Parallel()
	p := &peerChain{t: t, key: alice(t)}
	v := p.key.Public()
	b0 := p.build(1, nil)
	p.accept(b0)
	var at1 []peerBlock
	for i := range 3 {
		at1 = append(at1, p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.TimeMS += int64(i) }))
	}
	dir := t.TempDir()
	s := open(t, dir)
	for _, b := range []peerBlock{b0, at1[0]} {
		if _, err := s.Put(b.raw, b.objs); err != nil {
			t.Fatal(err)
		}
	}
	var first *ledger.EquivocationError
	if _, err := s.Put(at1[1].raw, nil); !errors.As(err, &first) {
		t.Fatalf("second block at height 1: %v", err)
	}
	s.Close()

	s = open(t, dir)
	var third *ledger.EquivocationError
	if _, err := s.Put(at1[2].raw, nil); !errors.As(err, &third) || third.Proof.Equals(first.Proof) {
		t.Fatalf("third block at height 1 after a restart: %v", err)
	}
	if _, err := s.Put(at1[1].raw, nil); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("second block again after a restart: %v", err)
	}
	h, err := s.Head(v)
	if err != nil || !h.Block.CID.Equals(at1[0].cid) || !h.Equivocating {
		t.Fatalf("head %+v (%v): want the first block at height 1, marked", h, err)
	}
	n := 0
	for fp, err := range s.ForkProofs() {
		if err != nil {
			t.Fatal(err)
		}
		if fp.Height != 1 {
			t.Fatalf("a fork proof at height %d", fp.Height)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d fork proofs, want 2", n)
	}
	s.Close()
	e, ok, err := ledgertest.Get(dir, append([]byte{'e'}, v[:]...))
	if err != nil || !ok || string(e) != string(first.Proof.Bytes()) {
		t.Fatalf("'e' of the validator holds %x (%v %v), want the first proof %s", e, ok, err, first.Proof)
	}
}
