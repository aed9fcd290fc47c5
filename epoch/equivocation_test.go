package epoch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/affine-ledger/ledger/vtrust"
)

// copyStore puts every block of src, with its objects, into a new store.
func copyStore(t *testing.T, src *ledger.Store) *ledger.Store {
	t.Helper()
	dst, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
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
// links the duel's transcripts and result, and returns the stored block.
func appendDuel(t *testing.T, s *ledger.Store, k *keys.Hotkey, anchor uint64, p verifytest.Duel) ledger.StoredBlock {
	t.Helper()
	a, err := s.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(anchor), p.Transcripts, [][]byte{p.Raw}); err != nil {
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

// TestEquivocatorCannotSplitHonestValidators: validator V signs two
// blocks at one height, one voting for the contender and one for the
// champion, and publishes both. Two honest observers receive them in
// opposite orders: each stores the first, keeps a fork proof and ignores
// the second, so they hold different blocks of V. With V pivotal, reading
// V's stored fork would give each a different winner. V is left out of
// every epoch whose window ends after its fork's anchor, and counts as
// before in the epochs before it, so both compute the same epochs.
func TestEquivocatorCannotSplitHonestValidators(t *testing.T) {
	for _, forkAt := range []uint64{5, 15} {
		t.Run(fmt.Sprintf("fork_at_%d", forkAt), func(t *testing.T) {
			// H honest (votes contender), V the equivocator, two idle observers.
			w := newModelWorld(t, false, 0, []uint64{100, 100, 1, 1})
			h, v, o1, o2 := w.keys[0], w.keys[1], w.keys[2], w.keys[3]
			ctx := context.Background()
			appendDuel(t, w.store, h, forkAt, w.result(t, h.Public(), duel.Win))
			// V's two forks at the same height.
			fa, fb := copyStore(t, w.store), copyStore(t, w.store)
			forContender := appendDuel(t, fa, v, forkAt, w.result(t, v.Public(), duel.Win))
			forChampion := appendDuel(t, fb, v, forkAt, w.result(t, v.Public(), duel.Loss))
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
			if err := w.chain.Advance(2 * tempo); err != nil {
				t.Fatal(err)
			}
			forked := forkAt/tempo + 1 // the epoch whose window holds the fork
			// The completeness wait does not wait for V: its records past the
			// fork are not read.
			end := Boundary(forked, chain.TempoSchedule(tempo))
			for _, k := range []*keys.Hotkey{h, o2} {
				appendDuel(t, s1, k, end, w.duel(t, k.Public(), w.champ, w.con, 100, duel.Win))
			}
			d, err := New(Config{Chain: w.chain, Store: s1, Key: o1})
			if err != nil {
				t.Fatal(err)
			}
			if m, err := d.missing(ctx, end); err != nil || len(m) > 0 {
				t.Errorf("observer 1 waits at block %d for %s (%v); the equivocator's fork is anchored at %d", end, missingList(m), err, forkAt)
			}
			for k := uint64(1); k <= forked; k++ {
				var outs []vtrust.Output
				for _, o := range []struct {
					key *keys.Hotkey
					s   *ledger.Store
				}{{o1, s1}, {o2, s2}} {
					out, _, err := Compute(ctx, w.chain, NewAuditor(o.key.Public(), o.s), k, w.champ)
					if err != nil {
						t.Fatal(err)
					}
					counted := slices.ContainsFunc(out.Validators, func(tr vtrust.Trust) bool { return tr.Hotkey == v.Public() })
					if counted != (k < forked) {
						t.Errorf("epoch %d: the equivocator counted %v, want %v (fork anchored at %d)", k, counted, k < forked, forkAt)
					}
					outs = append(outs, out)
				}
				if outs[0].Champion.Hotkey != outs[1].Champion.Hotkey {
					t.Errorf("epoch %d, same blocks, other arrival order: observer 1 ends with %s, observer 2 with %s (contender %s)",
						k, outs[0].Champion.Hotkey, outs[1].Champion.Hotkey, w.con.Hotkey)
				}
				// Without V the honest vote is more than half the trusted stake.
				if k == forked && outs[0].Champion.Hotkey != w.con.Hotkey {
					t.Errorf("epoch %d ends with %s, want the contender %s", k, outs[0].Champion.Hotkey, w.con.Hotkey)
				}
			}
		})
	}
}
