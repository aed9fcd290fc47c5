package ledger_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
)

// TestCheckpointReadsBesideTheWriter: a checkpoint of a store open for
// writing opens read-only while the writer goes on, holds every block
// committed before it, and none after.
func TestCheckpointReadsBesideTheWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	k := alice(t)
	a := appender(t, s, k)
	for i := uint64(0); i < 3; i++ {
		appendRange(t, a, k.Public(), 2*i, 2)
	}
	at := appendRange(t, a, k.Public(), 6, 2) // left in the WAL, not yet flushed
	ck := filepath.Join(t.TempDir(), "ck")
	if err := s.Checkpoint(ck); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(ck); err == nil {
		t.Error("a second checkpoint into the same directory succeeded")
	}
	later := appendRange(t, a, k.Public(), 8, 2)

	r, err := ledger.OpenReadOnly(ck)
	if err != nil {
		t.Fatalf("open the checkpoint beside its writer: %v", err)
	}
	defer r.Close()
	h, err := r.Head(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	if h.Block.CID != at.Block.CID {
		t.Fatalf("checkpoint head %s (height %d), want the last block before it, %s", h.Block.CID, h.Block.Height, at.Block.CID)
	}
	if _, err := r.Block(later.Block.CID); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("block appended after the checkpoint: %v, want ErrNotFound", err)
	}
	for _, c := range at.Transcripts {
		if _, err := r.Object(c); err != nil {
			t.Errorf("transcript %s of the last block: %v", c, err)
		}
	}
	if err := r.Checkpoint(filepath.Join(t.TempDir(), "ck2")); !errors.Is(err, ledger.ErrReadOnly) {
		t.Errorf("checkpoint of a read-only store: %v, want ErrReadOnly", err)
	}
}
