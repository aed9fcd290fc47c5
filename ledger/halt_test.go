package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// The same hotkey on two machines: a peer's block at a height this store
// already signed is equivocation, recorded as a fork proof, and the store
// signs no more of the chain, across a restart, until told to resume.
func TestConflictingBlockOfTheLocalChainHaltsSigning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	appendRange(t, a, v, 0, 1)
	rogue := (&peerChain{t: t, key: k, next: 500}).build(1, nil)
	if _, err := s.Put(rogue.raw, rogue.objs); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("rogue block: %v", err)
	}
	for p, err := range s.ForkProofs() {
		if err != nil || p.Validator != v || p.Height != 0 {
			t.Fatalf("fork proof %+v (err %v), want one of %s at height 0", p, err, v)
		}
	}
	wantHalt(t, s, v, 0, rogue.cid)
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 1, 0)}, nil); !errors.Is(err, ledger.ErrHalted) {
		t.Fatalf("append after the rogue block: %v", err)
	}
	a.Close()
	s.Close()

	// Durable: a restarted node may not sign either.
	s = open(t, dir)
	defer s.Close()
	wantHalt(t, s, v, 0, rogue.cid)
	if _, err := s.NewAppender(k); !errors.Is(err, ledger.ErrHalted) {
		t.Fatalf("new appender of a halted chain: %v", err)
	}
	// The operator stopped the other machine.
	a, err := s.NewAppender(k, ledger.ResumeSigning())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if h := a.Resumed(); h == nil || h.Block != rogue.cid {
		t.Fatalf("Resumed() = %v, want the rogue block's halt", h)
	}
	if s.Halted(v) != nil {
		t.Fatal("still halted after ResumeSigning")
	}
	if r := appendRange(t, a, v, 1, 1); r.Block.Height != 1 {
		t.Fatalf("resumed at height %d, want 1", r.Block.Height)
	}
}

// A peer's block extending the chain this store signs: refused (not the
// peer's fault: ErrLocalChain, not ErrInvalidBlock) and signing halts. A
// store that lost blocks gets them back by backfill with no appender
// running, which lifts the halt by itself.
func TestForeignExtensionOfTheLocalChainHaltsSigning(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	r := appendRange(t, a, v, 0, 1)
	head, err := s.Block(r.Block.CID)
	if err != nil {
		t.Fatal(err)
	}
	var leaves []cid.Cid
	for l, err := range s.Leaves(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, l.CID)
	}
	next := (&peerChain{t: t, key: k, next: 600, head: head.Block, cid: head.CID, leaves: leaves}).build(1, nil)
	if _, err := s.Put(next.raw, next.objs); !errors.Is(err, ledger.ErrLocalChain) || errors.Is(err, ledger.ErrInvalidBlock) {
		t.Fatalf("foreign extension of the local chain: %v", err)
	}
	wantHalt(t, s, v, 1, next.cid)
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 1, 0)}, nil); !errors.Is(err, ledger.ErrHalted) {
		t.Fatalf("append after the foreign block: %v", err)
	}
	a.Close()
	if _, err := s.NewAppender(k); !errors.Is(err, ledger.ErrHalted) {
		t.Fatalf("new appender before the block is backfilled: %v", err)
	}
	// With no appender the same block is an ordinary next block.
	if _, err := s.Put(next.raw, next.objs); err != nil {
		t.Fatalf("after closing the appender: %v", err)
	}
	a, err = s.NewAppender(k)
	if err != nil {
		t.Fatalf("new appender once the halting block is stored: %v", err)
	}
	defer a.Close()
	if h := a.Resumed(); h == nil || h.Block != next.cid {
		t.Fatalf("Resumed() = %v, want the foreign block's halt", h)
	}
	if r := appendRange(t, a, v, 2, 1); r.Block.Height != 2 {
		t.Fatalf("appended at height %d after the backfilled block, want 2", r.Block.Height)
	}
}

func wantHalt(t *testing.T, s *ledger.Store, v keys.PublicKey, height uint64, block cid.Cid) {
	t.Helper()
	h := s.Halted(v)
	if h == nil || h.Height != height || h.Block != block {
		t.Fatalf("Halted(%s) = %v, want block %s at height %d", v, h, block, height)
	}
}
