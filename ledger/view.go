package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// view is a Pebble snapshot taken right after a synced commit returned:
// what readers may see. It is reference counted because iterators stream
// from it after the writer has published a newer one.
type view struct {
	snap *pebble.Snapshot
	refs int    // guarded by Store.viewMu; the current view holds one
	seq  uint64 // order of creation, so publish never goes backwards
}

// newView snapshots the database. Caller holds writeMu (or is Open).
func (s *Store) newView() *view {
	s.liveViews.Add(1)
	s.viewSeq++
	return &view{snap: s.db.NewSnapshot(), refs: 1, seq: s.viewSeq}
}

// acquire returns the current view with a reference the caller releases.
func (s *Store) acquire() (*view, error) {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	if s.closed || s.cur == nil {
		return nil, fmt.Errorf("ledger store: %w", ErrClosed)
	}
	s.cur.refs++
	return s.cur, nil
}

func (s *Store) release(v *view) {
	s.viewMu.Lock()
	v.refs--
	last := v.refs == 0
	s.viewMu.Unlock()
	if last {
		v.snap.Close()
		s.liveViews.Done()
	}
}

// publish makes next the view readers get, once the fsync of the last
// batch it holds has returned. A view older than the current one (its
// batch synced together with a newer one that was published first) is
// dropped.
func (s *Store) publish(next *view) {
	s.viewMu.Lock()
	old := s.cur
	if old == nil || next.seq < old.seq {
		s.viewMu.Unlock()
		s.release(next)
		return
	}
	s.cur = next
	s.wakeLocked()
	s.viewMu.Unlock()
	s.release(old)
}

// wakeLocked wakes waitVisible callers. Caller holds viewMu.
func (s *Store) wakeLocked() {
	close(s.published)
	s.published = make(chan struct{})
}

// waitVisible returns once readers see ref (a block applied by another
// write whose fsync may still be running), or the store failed or closed.
func (s *Store) waitVisible(ref record.BlockRef) error {
	return s.waitKey(layout.BlockKey(ref.Validator, ref.Height), ref.CID.Bytes())
}

// waitKey returns once readers see key holding want (any value, if want is
// nil), or the store failed or closed.
func (s *Store) waitKey(key, want []byte) error {
	for {
		s.viewMu.Lock()
		cur, wake := s.cur, s.published
		if cur == nil {
			s.viewMu.Unlock()
			return fmt.Errorf("ledger store: %w", ErrClosed)
		}
		cur.refs++
		s.viewMu.Unlock()
		at, ok, err := get(cur.snap, key)
		s.release(cur)
		if err != nil {
			return err
		}
		if ok && (want == nil || bytes.Equal(at, want)) {
			return nil
		}
		if p := s.syncFailed.Load(); p != nil {
			return fmt.Errorf("ledger store: sync: %w", *p)
		}
		<-wake
	}
}

// reader is what the DB and its snapshots share.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

// get returns a copy of the value at key, or ok false if there is none.
func get(r reader, key []byte) (val []byte, ok bool, err error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// getFunc calls fn with the value at key (ok false if there is none)
// without copying it: the value is valid only during the call.
func getFunc(r reader, key []byte, fn func(val []byte, ok bool) error) error {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return fn(nil, false)
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	return fn(v, true)
}

func has(r reader, key []byte) (bool, error) {
	_, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	closer.Close()
	return true, nil
}

// hasFiltered is has for keys that are nearly always absent (challenge
// checks). DB.Get never reads the bloom filters of the bottom level (L6),
// where most of a store's tables are, so a miss there costs an index and
// a data block read; an iterator can be told to use them. tablesOnly skips
// the memtables (r must then be the DB, not a snapshot).
func hasFiltered(r reader, key []byte, tablesOnly bool) (bool, error) {
	iter, err := r.NewIter(&pebble.IterOptions{UseL6Filters: true, OnlyReadGuaranteedDurable: tablesOnly})
	if err != nil {
		return false, err
	}
	found := iter.SeekPrefixGE(key) && bytes.Equal(iter.Key(), key)
	if err := iter.Close(); err != nil {
		return false, err
	}
	return found, nil
}

func prefixIter(r reader, lower, upper []byte) (*pebble.Iterator, error) {
	return r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
}
