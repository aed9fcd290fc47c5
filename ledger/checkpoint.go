package ledger

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Checkpoint writes a consistent copy of the store to dir, which must not
// exist, for a reader while the store stays open for writing (the store's
// lock keeps readers out of a store being written). Tables are hard links
// where dir is on the store's file system, so a checkpoint is cheap until
// compactions replace the tables it links. It holds everything committed
// before the call, synced first, so nothing in it can be lost by a crash
// of the writer: a reader never sees a block the writer could sign again
// differently.
func (s *Store) Checkpoint(dir string) error {
	// Under writeMu, which Close takes before it closes Pebble; writes
	// wait for the checkpoint, a few milliseconds of links and copies.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.broken != nil {
		return fmt.Errorf("checkpoint store: %w", s.broken)
	}
	if err := s.db.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("checkpoint store to %s: %w", dir, err)
	}
	return nil
}

// RemoveCheckpoint removes a checkpoint Checkpoint wrote, unless a reader
// still has it open (ErrLocked): it takes the lock a writer would, so no
// reader can open the checkpoint while it goes.
func RemoveCheckpoint(dir string) error {
	l, err := lockFS{FS: vfs.Default}.Lock(filepath.Join(dir, "LOCK"))
	if err != nil {
		return fmt.Errorf("remove checkpoint %s: %w", dir, err)
	}
	defer l.Close()
	return os.RemoveAll(dir)
}
