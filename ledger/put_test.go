package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

func TestPutReplicatesAChain(t *testing.T) {
	t.Parallel()
	src := open(t, t.TempDir())
	defer src.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, src, k)
	appendRange(t, a, v, 0, 3)
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), nil, [][]byte{{0x80}}); err != nil { // a block with only a decision
		t.Fatal(err)
	}
	appendRange(t, a, v, 3, 4)
	blocks := exportChain(t, src, v)

	dst := open(t, t.TempDir())
	defer dst.Close()
	for _, b := range blocks {
		res, err := dst.Put(b.raw, b.objs)
		if err != nil {
			t.Fatalf("block %d: %v", b.blk.Height, err)
		}
		if !res.Stored || !res.Block.CID.Equals(b.cid) {
			t.Fatalf("block %d: %+v", b.blk.Height, res)
		}
	}
	// Idempotent: the same block again is accepted and not rewritten; the
	// answer still names it.
	res, err := dst.Put(blocks[1].raw, nil)
	want := ledger.PutResult{Block: record.BlockRef{Validator: v, Height: 1, CID: blocks[1].cid}}
	if err != nil || res != want {
		t.Fatalf("re-put: %+v %v, want %+v", res, err, want)
	}
	hs, _ := src.Head(v)
	hd, err := dst.Head(v)
	if err != nil || hd != hs {
		t.Fatalf("replica head %+v, source %+v (%v)", hd, hs, err)
	}
	if n := checkChain(t, dst, v); n != 7 {
		t.Fatalf("replica log has %d transcripts", n)
	}
}

func TestPutRejects(t *testing.T) {
	t.Parallel()
	k := alice(t)
	v := k.Public()
	p := &peerChain{t: t, key: k}
	b0 := p.build(2, nil)
	p.accept(b0)

	other := bob(t).Public()
	cases := []struct {
		name   string
		block  func() peerBlock
		reason error
		want   string
	}{
		{"wrong signature", func() peerBlock {
			b := p.build(1, nil)
			b.raw = append([]byte(nil), b.raw...)
			i := strings.Index(string(b.raw), "sig") + 5 // past "sig" and the byte-string header
			b.raw[i] ^= 1
			return b
		}, record.ErrBadSignature, "signature does not verify"},
		{"wrong parent", func() peerBlock {
			return p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.Prev = codec.LinkTo(codec.Sum([]byte("x"))) })
		}, ledger.ErrBadParent, "prev links"},
		{"time before parent", func() peerBlock {
			return p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.TimeMS = 5 })
		}, ledger.ErrBadParent, "before the parent"},
		{"older anchor", func() peerBlock {
			return p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.Anchor = recordtest.Anchor(0) })
		}, ledger.ErrBadParent, "anchor"},
		{"checkpoint size", func() peerBlock {
			return p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.Checkpoint.Size++ })
		}, ledger.ErrBadCheckpoint, "size 4"},
		{"checkpoint root", func() peerBlock {
			return p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.Checkpoint.Root[0] ^= 1 })
		}, ledger.ErrBadCheckpoint, "root"},
		{"transcripts reordered", func() peerBlock {
			return p.build(2, func(h *record.Header, _ map[cid.Cid][]byte) {
				h.Transcripts[0], h.Transcripts[1] = h.Transcripts[1], h.Transcripts[0]
			})
		}, ledger.ErrBadCheckpoint, "root"},
		{"missing transcript", func() peerBlock {
			b := p.build(2, nil)
			delete(b.objs, b.ts[1])
			return b
		}, ledger.ErrMissingObject, "transcript 1"},
		{"altered transcript", func() peerBlock {
			b := p.build(1, nil)
			raw := append([]byte(nil), b.objs[b.ts[0]]...)
			i := strings.Index(string(raw), "correct")
			raw[i] = 'C'
			b.objs[b.ts[0]] = raw
			return b
		}, ledger.ErrMissingObject, "hash to"},
		{"missing decision", func() peerBlock {
			return p.build(0, func(h *record.Header, _ map[cid.Cid][]byte) {
				h.Decisions = append(h.Decisions, codec.LinkTo(codec.Sum([]byte{0x80})))
			})
		}, ledger.ErrMissingObject, "decision 0"},
		{"bad decision", func() peerBlock {
			bad := []byte{0xa1, 0x61, 'a', 0x18, 0x01} // non-shortest integer
			return p.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
				c := codec.Sum(bad)
				objs[c] = bad
				h.Decisions = append(h.Decisions, codec.LinkTo(c))
			})
		}, record.ErrMalformed, "decision 0"},
		{"foreign transcript", func() peerBlock {
			return p.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
				tr := recordtest.Transcript(other, 99, 0)
				raw, c, _ := tr.Encode()
				objs[c] = raw
				h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
				h.Checkpoint = record.CheckpointOf(append(append([]cid.Cid(nil), p.leaves...), c))
			})
		}, record.ErrMalformed, "names validator"},
		{"challenge reused", func() peerBlock {
			return p.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
				tr := recordtest.Transcript(v, 1, 0) // in block 0 already
				tr.Invocation = record.InvocationID{9}
				raw, c, _ := tr.Encode()
				objs[c] = raw
				h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
				h.Checkpoint = record.CheckpointOf(append(append([]cid.Cid(nil), p.leaves...), c))
			})
		}, ledger.ErrChallengeReused, "the validator's log already put challenge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, t.TempDir())
			defer s.Close()
			if _, err := s.Put(b0.raw, b0.objs); err != nil {
				t.Fatal(err)
			}
			b := c.block()
			_, err := s.Put(b.raw, b.objs)
			var be *ledger.BlockError
			if !errors.Is(err, ledger.ErrInvalidBlock) || !errors.Is(err, c.reason) || !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInvalidBlock, %v, mentioning %q", err, c.reason, c.want)
			}
			if be.Validator != v || be.Height != 1 {
				t.Fatalf("error names validator %s height %d", be.Validator, be.Height)
			}
			if h, _ := s.Head(v); !h.Block.CID.Equals(b0.cid) {
				t.Fatal("a refused block moved the head")
			}
		})
	}

	t.Run("malformed bytes", func(t *testing.T) {
		s := open(t, t.TempDir())
		defer s.Close()
		_, err := s.Put(b0.raw[:len(b0.raw)-1], b0.objs)
		if !errors.Is(err, ledger.ErrInvalidBlock) || !errors.Is(err, record.ErrMalformed) {
			t.Fatalf("truncated block: %v", err)
		}
	})
}

func TestPutMissingParent(t *testing.T) {
	t.Parallel()
	p := &peerChain{t: t, key: alice(t)}
	var chain []peerBlock
	for i := 0; i < 4; i++ {
		b := p.build(1, nil)
		p.accept(b)
		chain = append(chain, b)
	}
	s := open(t, t.TempDir())
	defer s.Close()
	var mp *ledger.MissingParentError
	_, err := s.Put(chain[2].raw, chain[2].objs)
	if !errors.Is(err, ledger.ErrMissingParent) || errors.Is(err, ledger.ErrInvalidBlock) || !errors.As(err, &mp) || mp.HaveAny || mp.Height != 2 || mp.Validator != p.key.Public() {
		t.Fatalf("empty store: %v", err)
	}
	if _, err := s.Put(chain[0].raw, chain[0].objs); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(chain[3].raw, chain[3].objs)
	if !errors.As(err, &mp) || !mp.HaveAny || mp.Have != 0 || mp.Height != 3 {
		t.Fatalf("gap above head 0: %v", err)
	}
	// Backfill in order and the refused block goes in.
	for _, b := range chain[1:] {
		if _, err := s.Put(b.raw, b.objs); err != nil {
			t.Fatalf("backfill height %d: %v", b.blk.Height, err)
		}
	}
	if h, _ := s.Head(p.key.Public()); h.Block.Height != 3 {
		t.Fatalf("head %d after backfill", h.Block.Height)
	}
}

func TestEquivocation(t *testing.T) {
	t.Parallel()
	p := &peerChain{t: t, key: alice(t)}
	v := p.key.Public()
	b0 := p.build(1, nil)
	p.accept(b0)
	first := p.build(1, nil)
	second := p.build(1, func(h *record.Header, _ map[cid.Cid][]byte) { h.TimeMS += 7 })

	dir := t.TempDir()
	s := open(t, dir)
	for _, b := range []peerBlock{b0, first} {
		if _, err := s.Put(b.raw, b.objs); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Put(second.raw, second.objs)
	var eq *ledger.EquivocationError
	if !errors.Is(err, ledger.ErrEquivocation) || !errors.As(err, &eq) || eq.Height != 1 || eq.Validator != v {
		t.Fatalf("conflicting block: %v", err)
	}
	// Again (gossip repeats): same proof, not a second one.
	if _, err := s.Put(second.raw, nil); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("repeat: %v", err)
	}
	// An equivocation far below the head is caught too.
	p2 := &peerChain{t: t, key: p.key}
	alt0 := p2.build(2, nil)
	if _, err := s.Put(alt0.raw, alt0.objs); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("conflict at height 0: %v", err)
	}
	s.Close()

	s = open(t, dir)
	defer s.Close()
	h, err := s.Head(v)
	if err != nil || !h.Block.CID.Equals(first.cid) || !h.Equivocating {
		t.Fatalf("head %+v (%v): want the first block, marked equivocating", h, err)
	}
	var proofs []ledger.StoredForkProof
	for fp, err := range s.ForkProofs() {
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, fp)
	}
	if len(proofs) != 2 || proofs[0].Height != 0 || proofs[1].Height != 1 || !proofs[1].CID.Equals(eq.Proof) {
		t.Fatalf("fork proofs %+v", proofs)
	}
	// The proof is self-contained evidence: it verifies from its bytes.
	raw, err := s.Object(eq.Proof)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := record.DecodeForkProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, b, err := fp.Verify()
	if err != nil {
		t.Fatal(err)
	}
	got := map[cid.Cid]bool{codec.Sum(fp.A): true, codec.Sum(fp.B): true}
	if !got[first.cid] || !got[second.cid] || a.Height != 1 || b.Height != 1 {
		t.Fatal("fork proof does not hold both signed blocks")
	}
}

func TestConcurrentPutsOfOneChain(t *testing.T) {
	t.Parallel()
	// Several peers gossip the same chain at once: every Put succeeds
	// (stored or already there) and, when it returns, the block is
	// readable, whoever wrote it.
	p := &peerChain{t: t, key: alice(t)}
	var chain []peerBlock
	for i := 0; i < 12; i++ {
		b := p.build(2, nil)
		p.accept(b)
		chain = append(chain, b)
	}
	s := open(t, t.TempDir())
	defer s.Close()
	v := p.key.Public()
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(chain))
	stored := make(chan bool, 4*len(chain))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range chain {
				res, err := s.Put(b.raw, b.objs)
				if err != nil {
					errs <- err
					return
				}
				stored <- res.Stored
				if got, err := s.BlockAt(v, b.blk.Height); err != nil || !got.CID.Equals(b.cid) {
					errs <- fmt.Errorf("height %d not readable after Put returned: %v", b.blk.Height, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(stored)
	for err := range errs {
		t.Fatal(err)
	}
	n := 0
	for s := range stored {
		if s {
			n++
		}
	}
	if n != len(chain) {
		t.Fatalf("%d blocks reported stored, want exactly %d", n, len(chain))
	}
}

func TestLocalChainRefusedBeforeItsParentIsAsked(t *testing.T) {
	t.Parallel()
	// An appender with no block yet: a block of its chain above height 0
	// from elsewhere is refused as the local chain's, not reported as
	// missing its parent, which would send the network layer backfilling
	// blocks the store refuses anyway.
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	a := appender(t, s, k)
	defer a.Close()
	p := &peerChain{t: t, key: k, next: 700}
	p.accept(p.build(1, nil))
	second := p.build(1, nil)
	_, err := s.Put(second.raw, second.objs)
	if !errors.Is(err, ledger.ErrLocalChain) || errors.Is(err, ledger.ErrMissingParent) {
		t.Fatalf("block 1 of the local chain from elsewhere: %v, want ErrLocalChain", err)
	}
}
