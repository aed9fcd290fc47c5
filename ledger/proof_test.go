package ledger_test

import (
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

func TestProofs(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k)
	var cps []record.Checkpoint
	var leaves []ledger.Receipt
	n := uint64(0)
	for _, size := range []uint64{1, 2, 5, 8, 3, 1, 13, 4} { // 37 leaves over 8 blocks
		r := appendRange(t, a, v, n, size)
		n += size
		cps = append(cps, r.Checkpoint)
		leaves = append(leaves, r)
	}
	var all []ledger.TranscriptRef
	for r, err := range s.Leaves(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	if uint64(len(all)) != n {
		t.Fatalf("%d leaves", len(all))
	}

	for _, cp := range cps {
		for i := uint64(0); i < cp.Size; i++ {
			p, err := s.InclusionProof(v, i, cp.Size)
			if err != nil {
				t.Fatal(err)
			}
			if err := record.VerifyInclusion(all[i].CID, i, cp, p); err != nil {
				t.Fatalf("leaf %d in size %d: %v", i, cp.Size, err)
			}
			other := all[(i+1)%cp.Size].CID
			if cp.Size > 1 {
				if err := record.VerifyInclusion(other, i, cp, p); !errors.Is(err, record.ErrBadProof) {
					t.Fatalf("leaf %d: a different transcript verified", i)
				}
			}
			wrong := cp
			wrong.Root[3] ^= 1
			if err := record.VerifyInclusion(all[i].CID, i, wrong, p); !errors.Is(err, record.ErrBadProof) {
				t.Fatalf("leaf %d: verified against a wrong root", i)
			}
		}
	}
	// A modified leaf (one byte of the transcript's CID digest) fails.
	modified := codec.Sum([]byte("not the transcript"))
	p, _ := s.InclusionProof(v, 5, n)
	if err := record.VerifyInclusion(modified, 5, cps[len(cps)-1], p); !errors.Is(err, record.ErrBadProof) {
		t.Fatal("modified leaf verified")
	}

	for i, older := range cps {
		for _, newer := range cps[i:] {
			p, err := s.ConsistencyProof(v, older.Size, newer.Size)
			if err != nil {
				t.Fatal(err)
			}
			if err := record.VerifyConsistency(older, newer, p); err != nil {
				t.Fatalf("%d -> %d: %v", older.Size, newer.Size, err)
			}
			if older.Size != newer.Size {
				wrong := older
				wrong.Root[0] ^= 1
				if err := record.VerifyConsistency(wrong, newer, p); !errors.Is(err, record.ErrBadProof) {
					t.Fatalf("%d -> %d: verified with a wrong old root", older.Size, newer.Size)
				}
				wrong = newer
				wrong.Root[0] ^= 1
				if err := record.VerifyConsistency(older, wrong, p); !errors.Is(err, record.ErrBadProof) {
					t.Fatalf("%d -> %d: verified with a wrong new root", older.Size, newer.Size)
				}
			}
		}
	}

	// Leaf hashes and frontiers come from the same stored nodes.
	lh, err := s.LeafHash(v, 7)
	if err != nil || lh != record.LeafHash(all[7].CID) {
		t.Fatalf("leaf hash: %v", err)
	}
	front, err := s.Frontier(v, cps[3].Size)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := record.TreeFromFrontier(cps[3].Size, front)
	if err != nil || tree.Checkpoint() != cps[3] {
		t.Fatalf("frontier at %d does not give its checkpoint (%v)", cps[3].Size, err)
	}
	if _, err := s.InclusionProof(v, 0, n+1); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("proof beyond the head: %v", err)
	}
	if _, err := s.LeafHash(v, n); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("leaf beyond the head: %v", err)
	}
	// Requests that no log could answer wrap a sentinel too.
	if _, err := s.InclusionProof(v, cps[2].Size, cps[2].Size); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("inclusion of a leaf past the checkpoint's size: %v", err)
	}
	if _, err := s.ConsistencyProof(v, cps[3].Size, cps[2].Size); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("consistency from a larger checkpoint to a smaller: %v", err)
	}
}
