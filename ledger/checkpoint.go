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
	if err := s.syncWAL(); err != nil {
		return fmt.Errorf("checkpoint store to %s: %w", dir, err)
	}
	// No WithFlushedWAL: it syncs with a pebble.Sync commit, whose failed
	// fsync Pebble treats as fatal (a panic). syncWAL did the same, the
	// way every write of the store commits, and writeMu keeps new batches
	// out until the WAL is copied.
	if err := s.db.Checkpoint(dir); err != nil {
		return fmt.Errorf("checkpoint store to %s: %w", dir, err)
	}
	return nil
}

// syncWAL writes and syncs an empty record to the WAL, so that everything
// applied before it is in the WAL's files, durable. A failed fsync breaks
// the store as a failed append does (settle). Caller holds writeMu.
func (s *Store) syncWAL() error {
	b := s.db.NewBatch()
	defer b.Close()
	// LogData only fails on a closed or read-only batch.
	if err := b.LogData(nil, nil); err != nil {
		panic(fmt.Sprintf("ledger: batch log data: %v", err))
	}
	if err := s.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		s.broken = fmt.Errorf("%w: %w", ErrWriteFailed, err)
		return s.broken
	}
	if err := b.SyncWait(); err != nil {
		failed := fmt.Errorf("%w: %w", ErrWriteFailed, err)
		s.syncFailed.CompareAndSwap(nil, &failed)
		s.broken = *s.syncFailed.Load()
		s.viewMu.Lock()
		s.wakeLocked()
		s.viewMu.Unlock()
		return s.broken
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
