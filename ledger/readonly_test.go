package ledger_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
)

// TestOpenReadOnlyWritesNothing: a store closed with its blocks still in
// the WAL (Pebble does not flush on Close) reads whole, and no file of
// the directory is created, changed or deleted, where Open rewrites the
// MANIFEST, OPTIONS and WAL and compacts.
func TestOpenReadOnlyWritesNothing(t *testing.T) {
	t.Parallel()
	dir, v, rs := threeBlocks(t)
	before := ledgertest.DirHashes(t, dir)
	s, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(v)
	if err != nil {
		t.Fatal(err)
	}
	if h.Block.CID != rs[2].Block.CID {
		t.Fatalf("head %s, want %s", h.Block.CID, rs[2].Block.CID)
	}
	blocks := exportChain(t, s, v)
	if _, err := s.Put(blocks[0].raw, blocks[0].objs); !errors.Is(err, ledger.ErrReadOnly) {
		t.Errorf("Put: %v, want ErrReadOnly", err)
	}
	if _, err := s.NewAppender(alice(t)); !errors.Is(err, ledger.ErrReadOnly) {
		t.Errorf("NewAppender: %v, want ErrReadOnly", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := ledgertest.DirHashes(t, dir)
	for f, sum := range before {
		if got, ok := after[f]; !ok {
			t.Errorf("deleted %s", f)
		} else if got != sum {
			t.Errorf("rewrote %s", f)
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			t.Errorf("created %s", f)
		}
	}
}

// TestOpenReadOnlyRefuses: what is not a ledger store is ErrNotStore and
// left as it was; a store whose data disagrees with itself is ErrCorrupt,
// as with Open.
func TestOpenReadOnlyRefuses(t *testing.T) {
	t.Parallel()
	t.Run("empty directory", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if _, err := ledger.OpenReadOnly(dir); !errors.Is(err, ledger.ErrNotStore) {
			t.Fatalf("got %v, want ErrNotStore", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 1 { // Pebble's LOCK at most
			t.Fatalf("left %d files behind", len(entries))
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "none")
		if _, err := ledger.OpenReadOnly(dir); !errors.Is(err, ledger.ErrNotStore) {
			t.Fatalf("got %v, want ErrNotStore", err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatal("created the directory")
		}
	})
	t.Run("pebble database without the layout key", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		ledgertest.EmptyPebble(t, dir)
		if _, err := ledger.OpenReadOnly(dir); !errors.Is(err, ledger.ErrNotStore) {
			t.Fatalf("got %v, want ErrNotStore", err)
		}
	})
	t.Run("head pointer lost", func(t *testing.T) {
		t.Parallel()
		dir, v, _ := threeBlocks(t)
		if err := ledgertest.Delete(dir, ledgertest.HeadKey(v)); err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.OpenReadOnly(dir); !errors.Is(err, ledger.ErrCorrupt) {
			t.Fatalf("got %v, want ErrCorrupt", err)
		}
	})
}
