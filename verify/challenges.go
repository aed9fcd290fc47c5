package verify

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/internal/rmtree"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Location is where a challenge was first used in a chain, and what a
// duel result's outcome letters are checked against (spec/verify.md, D2):
// the reward that transcript recorded and its duel ID, whole: D2 holds a
// result to the transcripts with its duel ID, and a prefix would take
// another duel's transcripts for its own (a validator writes any duel
// field it likes), failing a chain the spec passes.
type Location struct {
	Height uint64
	Index  uint32
	Reward int64
	Duel   record.DuelID
}

// ChallengeSet remembers which challenges each validator's log put to
// which miner: the one piece of verifier state that grows with the ledger.
type ChallengeSet interface {
	// Add records that v's log put id to miner at loc. If it already did,
	// Add returns the first location and dup true, recording nothing.
	Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (first Location, dup bool, err error)
	// Get returns where v's log put id to miner, if it did.
	Get(v, miner keys.PublicKey, id challenge.ID) (Location, bool, error)
	Close() error
}

// MemSet is a ChallengeSet in memory, for tests and small ledgers.
type MemSet map[string]Location

// NewMemSet returns an empty MemSet.
func NewMemSet() MemSet { return MemSet{} }

// Add implements ChallengeSet.
func (m MemSet) Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (Location, bool, error) {
	var buf [maxSetKey]byte
	k, err := appendSetKey(buf[:0], v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	if first, ok := m[string(k)]; ok {
		return first, true, nil
	}
	m[string(k)] = loc
	return loc, false, nil
}

// Get implements ChallengeSet.
func (m MemSet) Get(v, miner keys.PublicKey, id challenge.ID) (Location, bool, error) {
	var buf [maxSetKey]byte
	k, err := appendSetKey(buf[:0], v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	loc, ok := m[string(k)]
	return loc, ok, nil
}

// Close implements ChallengeSet.
func (MemSet) Close() error { return nil }

// DiskSet is a ChallengeSet and AnchorSet in a scratch Pebble directory,
// so that a verifier's memory does not grow with the ledger: a constant
// few tens of MiB however many entries it holds. Without a WAL: the set
// lives only as long as one run.
//
// Add sits on the verifier's in-order path and nearly every key it sees is
// new, so DiskSet answers that case from memory. A Bloom filter of fixed
// size covers every key ever added: when it rules a key out, the key is
// new, without a read. New keys wait in a bounded buffer; a full buffer
// goes to Pebble as one sorted batch, written by a goroutine while Add
// fills the other buffer. A key the filter cannot rule out (a repeat, or a
// false positive, which grow frequent past a few million keys) is looked
// up in the buffers, then in Pebble: answers are exact, only their cost
// varies.
//
// Pebble is opened by the goroutine that writes the first full buffer:
// opening it costs several milliseconds of file creation and syncs, which
// would otherwise sit before the first block of every audit, and an audit
// of fewer than pendingMax challenges never needs it.
//
// A DiskSet is safe for concurrent use. A failed write to Pebble fails
// every later call: the filter would vouch for keys that Pebble lacks.
type DiskSet struct {
	mu sync.Mutex
	// db is nil until the first buffer has been written: until then no
	// key is in Pebble. The writing goroutine hands it over through done.
	db       *pebble.DB
	dir      string
	owner    io.Closer // the lock on dir (scratch.go)
	seed     maphash.Seed
	filter   filter
	active   *pending     // keys added since the last rotation
	flushing *pending     // the previous buffer, while a goroutine writes it; nil when none
	spare    *pending     // the buffer to use next, once flushing is written
	done     chan flushed // the write of flushing
	err      error
	key      [4 + maxSetKey]byte // scratch, so that Add does not allocate
}

// Sizes. A buffer of pendingMax challenges makes a batch of about 500
// KiB, which goes through Pebble's memtable (off the Go heap); four times
// that, as a large batch, Pebble would hold on the heap until flushed, and
// the set's peak memory would be 1.6 times higher at 1M keys than at 10k
// (BenchmarkVerifyMemory at 1M transcripts), 1.3 times with these.
// The filter's 4 MiB give 1% false positives at 3M keys, 0.02% at 1M.
const (
	pendingMax   = 1 << 12
	filterBlocks = 1 << 16
)

// NewDiskSet creates a set in a new temporary directory under dir ("" for
// the system's), removed by Close.
func NewDiskSet(dir string) (*DiskSet, error) {
	return newDiskSet(dir, pendingMax, filterBlocks)
}

// newDiskSet lets tests use a small buffer and filter, so that a short run
// exercises flushes and false positives.
func newDiskSet(dir string, pendingMax, filterBlocks int) (*DiskSet, error) {
	// The directory is made now, so that an unusable dir fails here.
	tmp, owner, err := makeScratch(dir)
	if err != nil {
		return nil, fmt.Errorf("challenge set: %w", err)
	}
	sweepScratch(dir, tmp, time.Now())
	return &DiskSet{
		dir:    tmp,
		owner:  owner,
		seed:   maphash.MakeSeed(),
		filter: newFilter(filterBlocks),
		active: newPending(pendingMax),
		spare:  newPending(pendingMax),
		done:   make(chan flushed, 1),
	}, nil
}

// openDiskSetDB opens the set's Pebble store in dir.
func openDiskSetDB(dir string) (*pebble.DB, error) {
	cache := pebble.NewCache(4 << 20)
	defer cache.Unref()
	return pebble.Open(dir, diskSetOptions(cache))
}

// diskSetOptions tunes Pebble for many writes of random keys and rare
// reads. Small memtable and cache: memory must not grow with the ledger.
// Every table spans the whole key space, so each L0 compaction rewrites
// the level below: letting L0 grow to 32 tables before compacting makes
// that rare, and costs reads little, since Pebble's bloom filters answer
// most of them (lookups that pass DiskSet's filter are mostly for absent
// keys). No compression: seeds are random, and the tables' prefix
// compression already shares the (validator, miner) part of keys.
// Pebble's oldest supported format: a new store is created in it and then
// upgraded one format at a time, each step a marker file and a sync, which
// made opening take 10 ms instead of 4-5; a store that lives for one run
// needs none of the newer formats' features, and its adds and lookups
// were no slower (BenchmarkDiskSetAdd, 2 alternating pairs).
func diskSetOptions(cache *pebble.Cache) *pebble.Options {
	opts := &pebble.Options{
		DisableWAL:            true,
		Logger:                quiet{},
		FormatMajorVersion:    pebble.FormatMinSupported,
		MemTableSize:          4 << 20,
		Cache:                 cache,
		L0CompactionThreshold: 32,
		L0StopWritesThreshold: 64,
	}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		opts.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
	}
	return opts
}

// Add implements ChallengeSet. A challenge's key is a 4-byte hash of
// (v, miner) followed by appendSetKey's: see pending.sort.
func (d *DiskSet) Add(v, miner keys.PublicKey, id challenge.ID, loc Location) (Location, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, err := d.setKey(v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	return d.add(k, loc)
}

// Get implements ChallengeSet.
func (d *DiskSet) Get(v, miner keys.PublicKey, id challenge.ID) (Location, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, err := d.setKey(v, miner, id)
	if err != nil {
		return Location{}, false, err
	}
	return d.lookup(k, maphash.Bytes(d.seed, k))
}

// setKey builds a challenge's key in d.key; d.mu is held.
func (d *DiskSet) setKey(v, miner keys.PublicKey, id challenge.ID) ([]byte, error) {
	k, err := appendSetKey(d.key[:4], v, miner, id)
	if err != nil {
		return nil, err
	}
	binary.BigEndian.PutUint32(k, uint32(maphash.Bytes(d.seed, k[4:4+64])))
	return k, nil
}

// add records k at loc unless it is there already; d.mu is held.
func (d *DiskSet) add(k []byte, loc Location) (Location, bool, error) {
	h := maphash.Bytes(d.seed, k)
	first, found, err := d.lookup(k, h)
	if err != nil || found {
		return first, found, err
	}
	d.filter.add(h)
	d.active.add(k, h, loc)
	if d.active.full() {
		if err := d.rotate(); err != nil {
			return Location{}, false, err
		}
	}
	return loc, false, nil
}

// lookup finds k, whose hash is h; d.mu is held.
func (d *DiskSet) lookup(k []byte, h uint64) (Location, bool, error) {
	if d.err != nil {
		return Location{}, false, d.err
	}
	if !d.filter.mayHave(h) {
		return Location{}, false, nil
	}
	if loc, ok := d.active.get(k, h); ok {
		return loc, true, nil
	}
	if d.flushing != nil {
		if loc, ok := d.flushing.get(k, h); ok {
			return loc, true, nil
		}
	}
	if d.db == nil {
		return Location{}, false, nil
	}
	val, closer, err := d.db.Get(k)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		return Location{}, false, nil
	case err != nil:
		return Location{}, false, fmt.Errorf("challenge set: %w", err)
	}
	defer closer.Close()
	if len(val) != locationBytes {
		return Location{}, false, fmt.Errorf("challenge set: value of %d bytes", len(val))
	}
	return decodeLocation(val), true, nil
}

// rotate hands the active buffer to a goroutine that writes it to Pebble,
// once the previous one is written; d.mu is held.
func (d *DiskSet) rotate() error {
	if err := d.wait(); err != nil {
		return err
	}
	d.flushing, d.active, d.spare = d.active, d.spare, nil
	go func(db *pebble.DB, p *pending) {
		var err error
		if db == nil {
			db, err = openDiskSetDB(filepath.Join(d.dir, scratchStore))
		}
		if err == nil {
			err = write(db, p)
		}
		d.done <- flushed{db, err}
	}(d.db, d.flushing)
	return nil
}

// flushed is what the goroutine writing a buffer reports: the store it
// wrote to (nil if it could not open one) and the write's error.
type flushed struct {
	db  *pebble.DB
	err error
}

// wait waits for the buffer being written, if any, and makes it the spare;
// d.mu is held.
func (d *DiskSet) wait() error {
	if d.flushing == nil {
		return d.err
	}
	f := <-d.done
	if f.db != nil {
		d.db = f.db
	}
	if f.err != nil && d.err == nil {
		d.err = fmt.Errorf("challenge set: %w", f.err)
	}
	d.flushing.reset()
	d.spare, d.flushing = d.flushing, nil
	return d.err
}

// write commits p to db in key order, in one batch. p is not modified but
// for its order, which only write uses, so lookups may read p meanwhile.
func write(db *pebble.DB, p *pending) error {
	p.sort()
	b := db.NewBatchWithSize(len(p.arena) + len(p.entries)*(locationBytes+8))
	var val [locationBytes]byte
	for _, o := range p.order {
		e := p.entries[o.i]
		encodeLocation(val[:], e.loc)
		if err := b.Set(p.key(e), val[:], nil); err != nil {
			b.Close()
			return err
		}
	}
	err := b.Commit(pebble.NoSync)
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return err
}

// Dir is the scratch directory, which Close removes: a command stopped by
// a signal removes it itself.
func (d *DiskSet) Dir() string { return d.dir }

// Close removes the scratch directory. It reports a failed write even if
// no call did since: the set's answers were right, but nothing after them
// would have been.
func (d *DiskSet) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.wait()
	if d.db != nil {
		if cerr := d.db.Close(); err == nil {
			err = cerr
		}
		d.db = nil
	}
	if d.owner != nil { // Pebble's lock panics if released twice
		if cerr := d.owner.Close(); err == nil {
			err = cerr
		}
		d.owner = nil
	}
	if rerr := rmtree.RemoveAll(d.dir); err == nil {
		err = rerr
	}
	return err
}

// maxSetKey bounds setKey's length: two public keys and the longest binary
// challenge ID.
const maxSetKey = 64 + 1 + challenge.MaxEnvName + 2 + challenge.SeedSize

// appendSetKey appends v || miner || id's seed || BE16 version || u8
// len(env) || env: injective, at least 64 + 32 + 3 + 1 = 100 bytes.
func appendSetKey(k []byte, v, miner keys.PublicKey, id challenge.ID) ([]byte, error) {
	if err := challenge.CheckEnvName(id.Env); err != nil {
		return nil, err
	}
	k = append(k, v[:]...)
	k = append(k, miner[:]...)
	k = append(k, id.Seed[:]...)
	k = binary.BigEndian.AppendUint16(k, id.Version)
	k = append(k, byte(len(id.Env)))
	return append(k, id.Env...), nil
}

type quiet struct{}

func (quiet) Infof(string, ...any)           {}
func (quiet) Errorf(string, ...any)          {}
func (quiet) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }

// filter is a blocked Bloom filter over 64-bit key hashes: a key sets
// filterProbes bits of one 512-bit block (a cache line), so a lookup costs
// one cache miss. It answers "absent" or "maybe", never wrongly "absent".
type filter []uint64

// filterProbes is best for about 10 filter bits per key.
const filterProbes = 7

func newFilter(blocks int) filter { return make(filter, 8*blocks) }

func (f filter) block(h uint64) *[8]uint64 {
	i := (h >> 32) * uint64(len(f)/8) >> 32
	return (*[8]uint64)(f[8*i:])
}

// add and mayHave take h's bit positions in its block from the top 9 bits
// of h times successive powers of an odd constant, each depending on all
// of h.
const filterMul = 0x9e3779b97f4a7c15

func (f filter) add(h uint64) {
	b := f.block(h)
	for range filterProbes {
		h *= filterMul
		b[h>>61] |= 1 << (h >> 55 & 63)
	}
}

func (f filter) mayHave(h uint64) bool {
	b := f.block(h)
	for range filterProbes {
		h *= filterMul
		if b[h>>61]&(1<<(h>>55&63)) == 0 {
			return false
		}
	}
	return true
}

// pending is DiskSet's buffer of keys not yet in Pebble: an open-addressing
// hash table over keys stored back to back, so that adding one allocates
// nothing once the buffer has filled for the first time.
type pending struct {
	arena   []byte
	entries []pendingEntry
	slots   []int32     // 1 + index into entries, 0 if free; a power of two >= 2*max
	order   []sortEntry // entries by key, for flush
	max     int
}

type pendingEntry struct {
	off, n uint32 // the key is arena[off:off+n]
	hash   uint64
	loc    Location
}

func newPending(max int) *pending {
	n := 1
	for n < 2*max {
		n *= 2
	}
	return &pending{slots: make([]int32, n), max: max}
}

func (p *pending) key(e pendingEntry) []byte { return p.arena[e.off : e.off+e.n] }

func (p *pending) full() bool { return len(p.entries) >= p.max }

// slot returns the index of k's slot, or of the free slot where k goes.
func (p *pending) slot(k []byte, h uint64) int {
	mask := uint64(len(p.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := p.slots[i]
		if s == 0 {
			return int(i)
		}
		if e := p.entries[s-1]; e.hash == h && bytes.Equal(p.key(e), k) {
			return int(i)
		}
	}
}

func (p *pending) get(k []byte, h uint64) (Location, bool) {
	s := p.slots[p.slot(k, h)]
	if s == 0 {
		return Location{}, false
	}
	return p.entries[s-1].loc, true
}

// add inserts k, which must be absent, and below p.max entries.
func (p *pending) add(k []byte, h uint64, loc Location) {
	p.entries = append(p.entries, pendingEntry{off: uint32(len(p.arena)), n: uint32(len(k)), hash: h, loc: loc})
	p.arena = append(p.arena, k...)
	p.slots[p.slot(k, h)] = int32(len(p.entries))
}

// sort sets p.order to the entries in key order: Pebble takes a batch of
// sorted keys faster. A challenge's key in Pebble is a 4-byte hash of
// (validator, miner) || appendSetKey: keys sort nearly always by the hash
// and the first 4 bytes of the seed, compared as one integer kept next to
// the index. (Were two pairs to share a hash, the order would differ from
// Pebble's for their keys: slower, not wrong.)
func (p *pending) sort() {
	p.order = p.order[:0]
	for i, e := range p.entries {
		var abbrev uint64
		if k := p.key(e); len(k) >= 4+64+4 {
			abbrev = uint64(binary.BigEndian.Uint32(k))<<32 | uint64(binary.BigEndian.Uint32(k[4+64:]))
		}
		p.order = append(p.order, sortEntry{abbrev: abbrev, i: int32(i)})
	}
	slices.SortFunc(p.order, func(a, b sortEntry) int {
		if c := cmp.Compare(a.abbrev, b.abbrev); c != 0 {
			return c
		}
		return bytes.Compare(p.key(p.entries[a.i]), p.key(p.entries[b.i]))
	})
}

type sortEntry struct {
	abbrev uint64
	i      int32
}

func (p *pending) reset() {
	p.arena = p.arena[:0]
	p.entries = p.entries[:0]
	clear(p.slots)
}

// locationBytes is a Location's size in Pebble: BE64 height, BE32 index,
// BE64 reward, the 32-byte duel ID.
const locationBytes = 8 + 4 + 8 + 32

func encodeLocation(val []byte, l Location) {
	binary.BigEndian.PutUint64(val, l.Height)
	binary.BigEndian.PutUint32(val[8:], l.Index)
	binary.BigEndian.PutUint64(val[12:], uint64(l.Reward))
	copy(val[20:], l.Duel[:])
}

func decodeLocation(val []byte) Location {
	return Location{
		Height: binary.BigEndian.Uint64(val),
		Index:  binary.BigEndian.Uint32(val[8:]),
		Reward: int64(binary.BigEndian.Uint64(val[12:])),
		Duel:   record.DuelID(val[20:]),
	}
}
