package ledger

import (
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
	return hasFiltered(s.db, layout.ChallengeKey(challenge, v), true)
}
