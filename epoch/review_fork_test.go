package epoch

import (
	"context"
	"errors"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// copyStore puts every block of src, with its objects, into a new store.
func copyStore(t *testing.T, src *ledger.Store) *ledger.Store {
	t.Helper()
	dst, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	var vals []keys.PublicKey
	for h, err := range src.Heads() {
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, h.Block.Validator)
	}
	for _, v := range vals {
		for b, err := range src.Blocks(v, 0) {
			if err != nil {
				t.Fatal(err)
			}
			putBlock(t, src, dst, b)
		}
	}
	return dst
}

// putBlock puts b (read from src) into dst and returns Put's error.
func putBlock(t *testing.T, src, dst *ledger.Store, b ledger.StoredBlock) error {
	t.Helper()
	objs := map[cid.Cid][]byte{}
	for _, l := range b.Transcripts {
		raw, err := src.Object(l.Cid)
		if err != nil {
			t.Fatal(err)
		}
		objs[l.Cid] = raw
	}
	for _, l := range b.Decisions {
		raw, err := src.Object(l.Cid)
		if err != nil {
			t.Fatal(err)
		}
		objs[l.Cid] = raw
	}
	_, err := dst.Put(b.Raw, objs)
	return err
}

// appendDuel appends to k's chain in s a block anchored at anchor that
// links r, and returns the stored block.
func appendDuel(t *testing.T, s *ledger.Store, k *keys.Hotkey, anchor uint64, r duel.Result) ledger.StoredBlock {
	t.Helper()
	b, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(anchor), nil, [][]byte{b}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	for sb, err := range s.Blocks(k.Public(), h.Block.Height) {
		if err != nil {
			t.Fatal(err)
		}
		return sb
	}
	t.Fatal("appended block not found")
	return ledger.StoredBlock{}
}

// TestReviewEquivocatorSplitsHonestValidators: validator V signs two
// blocks at one height, one voting for the contender and one for the
// champion, and publishes both. Two honest observers receive the same two
// blocks in opposite orders: each stores the first, keeps a fork proof and
// ignores the second. They hold the same records, yet Compute reads only
// the fork each stored first (the epoch ignores equivocation), and with V
// pivotal they compute different winners and set different weights.
func TestReviewEquivocatorSplitsHonestValidators(t *testing.T) {
	// H honest (votes contender), V the equivocator, two idle observers.
	w := newModelWorld(t, false, 0, []uint64{100, 100, 1, 1})
	h, v, o1, o2 := w.keys[0], w.keys[1], w.keys[2], w.keys[3]
	ctx := context.Background()
	appendDuel(t, w.store, h, 5, w.result(t, duel.Win))
	// V's two forks at the same height.
	fa, fb := copyStore(t, w.store), copyStore(t, w.store)
	forContender := appendDuel(t, fa, v, 5, w.result(t, duel.Win))
	forChampion := appendDuel(t, fb, v, 5, w.result(t, duel.Loss))
	if forContender.Height != forChampion.Height {
		t.Fatalf("forks at heights %d and %d", forContender.Height, forChampion.Height)
	}
	// Observer 1 gets the contender fork first, observer 2 the other.
	s1, s2 := copyStore(t, w.store), copyStore(t, w.store)
	if err := putBlock(t, fa, s1, forContender); err != nil {
		t.Fatal(err)
	}
	if err := putBlock(t, fb, s1, forChampion); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("second fork at observer 1: %v, want equivocation", err)
	}
	if err := putBlock(t, fb, s2, forChampion); err != nil {
		t.Fatal(err)
	}
	if err := putBlock(t, fa, s2, forContender); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("second fork at observer 2: %v, want equivocation", err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	out1, _, err := Compute(ctx, w.chain, NewAuditor(o1.Public(), s1), 1, w.champ)
	if err != nil {
		t.Fatal(err)
	}
	out2, _, err := Compute(ctx, w.chain, NewAuditor(o2.Public(), s2), 1, w.champ)
	if err != nil {
		t.Fatal(err)
	}
	if out1.Champion.Hotkey != out2.Champion.Hotkey {
		t.Errorf("same blocks, other arrival order: observer 1 ends epoch 1 with %s, observer 2 with %s (contender %s)",
			out1.Champion.Hotkey, out2.Champion.Hotkey, w.con.Hotkey)
	}
}
