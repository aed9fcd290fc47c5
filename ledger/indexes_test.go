package ledger_test

import (
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
)

// indexedTranscripts reads v's log back as what its index entries are
// derived from.
func indexedTranscripts(t *testing.T, s *ledger.Store, v keys.PublicKey) []ledger.IndexedTranscript {
	t.Helper()
	var out []ledger.IndexedTranscript
	for ref, err := range s.Leaves(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Transcript(ref.CID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ledger.IndexedTranscript{Ref: ref, Miner: st.Miner.Hotkey, Challenge: st.Challenge, Duel: st.Duel})
	}
	return out
}

// TestIndexReaderAndCounts: every transcript the store wrote has its
// entries as IndexReader.Check looks them up, ScanIndexes finds them by
// validator, with each chain's head, and a damaged or extra
// entry shows in each.
func TestIndexReaderAndCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	a, b := alice(t), bob(t)
	appendRange(t, appender(t, s, a), a.Public(), 0, 7)
	appendRange(t, appender(t, s, b), b.Public(), 0, 3)
	ts := indexedTranscripts(t, s, a.Public())
	if len(ts) != 7 || ts[2].Duel.IsZero() {
		t.Fatalf("%d transcripts of alice, duel of the third %v", len(ts), ts[2].Duel)
	}
	check := func(s *ledger.Store, tr ledger.IndexedTranscript) string {
		t.Helper()
		r, err := s.NewIndexReader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		problem, err := r.Check(tr)
		if err != nil {
			t.Fatal(err)
		}
		return problem
	}
	for _, tr := range ts {
		if problem := check(s, tr); problem != "" {
			t.Fatalf("leaf %d: %s", tr.Ref.Leaf, problem)
		}
	}
	moved := ts[2]
	moved.Ref.Height++
	if problem := check(s, moved); !strings.Contains(problem, "holds leaf 2 at height 0") {
		t.Fatalf("a transcript placed elsewhere: %q", problem)
	}

	counts, heads := countIndexes(t, s, nil)
	headA, _ := s.Head(a.Public())
	if c := counts[a.Public()]; c != [3]int{7, 7, 7} || !heads[a.Public()].Equals(headA.Block.CID) {
		t.Fatalf("alice's entries %v, head %s, want 7 of each and head %s", c, heads[a.Public()], headA.Block.CID)
	}
	only := b.Public()
	headB, _ := s.Head(only)
	if counts, heads := countIndexes(t, s, &only); len(counts) != 1 || counts[only] != [3]int{3, 3, 3} || len(heads) != 1 || !heads[only].Equals(headB.Block.CID) {
		t.Fatalf("bob's alone: %v, heads %v, want bob's head %s", counts, heads, headB.Block.CID)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Behind the store's back: one miner entry of alice's gone, and a
	// duel entry for a leaf she does not have.
	if err := ledgertest.Delete(dir, ledgertest.MinerKey(ts[2].Miner, a.Public(), 2)); err != nil {
		t.Fatal(err)
	}
	if err := ledgertest.Set(dir, ledgertest.DuelKey(ts[2].Duel, a.Public(), 40), []byte("x")); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	defer s.Close()
	if problem := check(s, ts[2]); !strings.Contains(problem, "the store has no miner index's entry for miner") {
		t.Fatalf("a deleted entry: %q", problem)
	}
	counts, _ = countIndexes(t, s, nil)
	if c := counts[a.Public()]; c != [3]int{7, 6, 8} {
		t.Fatalf("alice's entries after the damage %v, want 7, 6, 8", c)
	}
}

// countIndexes counts the entries ScanIndexes finds, by validator and
// index, and returns them with the heads it gives; no entry may be
// malformed.
func countIndexes(t *testing.T, s *ledger.Store, only *keys.PublicKey) (map[keys.PublicKey][3]int, map[keys.PublicKey]cid.Cid) {
	t.Helper()
	counts := map[keys.PublicKey][3]int{}
	heads, err := s.ScanIndexes(only, func(e ledger.ScannedEntry) error {
		if e.Malformed {
			t.Fatalf("malformed entry %x", e.Key)
		}
		c := counts[e.Validator]
		c[strings.IndexByte("cmd", byte(e.Kind))]++
		counts[e.Validator] = c
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts, heads
}
