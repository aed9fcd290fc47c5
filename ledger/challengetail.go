package ledger

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
)

// An appender checks each new transcript's challenge against its log
// without reading Pebble's memtables: a challenge is used if it is
// reserved (pending, see Appender.reserve), in the appender's tail (applied
// by this appender and perhaps not yet flushed from a memtable), or in the
// flushed tables, read with an iterator that skips the memtables
// (OnlyReadGuaranteedDurable) and consults every level's bloom filters.
// Nearly every check misses, and a miss in the memtables is a skiplist
// search of each one, the largest part of a lookup; the tail is a map.
//
// The three together see every applied challenge of the validator:
//   - NewAppender flushes the memtables once its appender is registered,
//     from when Put refuses the validator's blocks (only the appender
//     writes its challenges), so what was applied before is in the tables.
//   - The commit loop adds a block's challenges to the tail after applying
//     its batch and before releasing their reservations.
//   - A challenge leaves the tail only once a flush that holds its batch
//     has ended (Pebble reports FlushEnd after new iterators see the
//     flushed tables), and a check reads the tail before it creates its
//     iterator: a challenge gone from the tail when read is in the tables
//     the iterator sees.
type challengeTail struct {
	flushed *atomic.Uint64 // Store.flushedSeq

	mu sync.Mutex
	// seq maps a challenge (leafRecord.challenge) to the sequence number
	// of its batch's last key.
	seq map[string]uint64
	// fifo holds the same entries in the order they were added, which is
	// sequence order: pruning pops from the front.
	fifo []tailEntry
	head int
}

type tailEntry struct {
	seq       uint64
	challenge string
}

func newChallengeTail(flushed *atomic.Uint64) *challengeTail {
	return &challengeTail{flushed: flushed, seq: map[string]uint64{}}
}

// add records the challenges of a batch applied with last sequence number
// lastSeq, and forgets those of batches flushed since.
func (t *challengeTail) add(leaves []leafRecord, lastSeq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked()
	for _, l := range leaves {
		ch := string(l.challenge)
		t.seq[ch] = lastSeq
		t.fifo = append(t.fifo, tailEntry{lastSeq, ch})
	}
}

func (t *challengeTail) pruneLocked() {
	flushed := t.flushed.Load()
	for t.head < len(t.fifo) && t.fifo[t.head].seq <= flushed {
		e := t.fifo[t.head]
		if t.seq[e.challenge] == e.seq {
			delete(t.seq, e.challenge)
		}
		t.fifo[t.head] = tailEntry{}
		t.head++
	}
	if t.head > len(t.fifo)/2 {
		t.fifo = append(t.fifo[:0], t.fifo[t.head:]...)
		t.head = 0
	}
}

func (t *challengeTail) has(challenge []byte) bool {
	t.mu.Lock()
	_, ok := t.seq[string(challenge)]
	t.mu.Unlock()
	return ok
}

// noteFlushed is Pebble's FlushEnd hook: it raises flushed to the highest
// sequence number the flush wrote. Memtables are flushed oldest first and
// get increasing sequence numbers, so every batch at or below it is in
// tables.
func noteFlushed(flushed *atomic.Uint64, info pebble.FlushInfo) {
	if info.Err != nil {
		return
	}
	for _, out := range info.Output {
		seq := uint64(out.LargestSeqNum)
		for {
			cur := flushed.Load()
			if seq <= cur || flushed.CompareAndSwap(cur, seq) {
				break
			}
		}
	}
}

// challengeUsedLocal reports whether v's log holds challenge, for v's
// running appender (see challengeTail).
func (s *Store) challengeUsedLocal(tail *challengeTail, v keys.PublicKey, challenge []byte) (bool, error) {
	if tail.has(challenge) {
		return true, nil
	}
	// Read after the tail: see tableIters.
	epoch := s.tables.epoch.Load()
	iter, err := s.tables.get(s.db, epoch)
	if err != nil {
		return false, err
	}
	key := layout.ChallengeKey(challenge, v)
	found := iter.SeekPrefixGE(key) && bytes.Equal(iter.Key(), key)
	if err := iter.Error(); err != nil {
		iter.Close()
		return false, err
	}
	s.tables.put(iter, epoch)
	return found, nil
}

// tableIters keeps idle iterators over the flushed tables (memtables
// skipped, every level's bloom filters used) for challenge checks, which
// then cost a seek instead of building an iterator stack. An iterator sees
// the tables of its creation; epoch counts flushes and compactions, and an
// iterator is reused only within its epoch. FlushEnd raises epoch before
// Store.flushedSeq, so a check that reads the tail and then the epoch
// either finds a challenge in the tail or gets an iterator made after the
// flush that let the tail forget it. An idle iterator pins the tables and
// the memtables of its epoch until a later check or Close drops it.
type tableIters struct {
	epoch atomic.Uint64
	mu    sync.Mutex
	idle  []epochIter
}

type epochIter struct {
	iter  *pebble.Iterator
	epoch uint64
}

const maxIdleTableIters = 4

func (p *tableIters) get(db *pebble.DB, epoch uint64) (*pebble.Iterator, error) {
	var stale []*pebble.Iterator
	var iter *pebble.Iterator
	p.mu.Lock()
	for len(p.idle) > 0 && iter == nil {
		e := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if e.epoch == epoch {
			iter = e.iter
		} else {
			stale = append(stale, e.iter)
		}
	}
	p.mu.Unlock()
	for _, it := range stale {
		it.Close()
	}
	if iter != nil {
		return iter, nil
	}
	return db.NewIter(&pebble.IterOptions{UseL6Filters: true, OnlyReadGuaranteedDurable: true})
}

func (p *tableIters) put(iter *pebble.Iterator, epoch uint64) {
	p.mu.Lock()
	if p.epoch.Load() == epoch && len(p.idle) < maxIdleTableIters {
		p.idle = append(p.idle, epochIter{iter, epoch})
		iter = nil
	}
	p.mu.Unlock()
	if iter != nil {
		iter.Close()
	}
}

// closeAll closes the idle iterators; no check may run any more.
func (p *tableIters) closeAll() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, e := range idle {
		e.iter.Close()
	}
}
