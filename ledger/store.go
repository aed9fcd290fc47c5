package ledger

import (
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/affine-ledger/ledger/decisions"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Store is a Pebble database of validators' chains of signed blocks, their
// transcripts and decisions, Merkle nodes, indexes and fork proofs
// (spec/store.md).
//
// Invariants:
//   - Append-only: no method rewrites or deletes a stored value.
//   - One writer: every batch is applied under writeMu with pebble.Sync,
//     the local appenders' blocks and peers' blocks alike, so batches of
//     one chain reach the WAL in chain order.
//   - Durable before visible: readers see a Pebble snapshot taken right
//     after a batch was applied and published only once that batch's WAL
//     fsync returned; never the live database, where a batch is readable
//     before its fsync (another goroutine could read it and act on data a
//     crash would lose). Appends are acknowledged at the same moment.
//   - For every validator with a head, blocks 0..head are stored, the head
//     pointer names the block at the highest height, and the stored Merkle
//     nodes give the head checkpoint's root. Open checks this.
//
// All methods are safe for concurrent use.
type Store struct {
	db   *pebble.DB
	opts options

	// writeMu serializes writes and guards chains, local, broken and
	// viewSeq.
	writeMu sync.Mutex
	chains  map[keys.PublicKey]*chain
	// net is the store's network (network.go), nil while it has none.
	// Set by open, or once under writeMu; read without it (every
	// gossiped record is checked against it).
	net atomic.Pointer[record.Network]
	// rebound is the network an empty store was bound to before open
	// bound it to another (ReboundFrom).
	rebound *record.Network
	// local maps validators to the appender writing their chain here.
	local map[keys.PublicKey]*Appender
	// halted holds the chains this store signs no block of (halt.go).
	halted map[keys.PublicKey]*HaltedError
	// broken is set when a write failed: Pebble may then hold state we
	// could not sync, so the store refuses further writes.
	broken error
	// viewSeq numbers views; guarded by writeMu.
	viewSeq uint64
	// syncFailed holds the first failed fsync, seen by settle without
	// writeMu.
	syncFailed atomic.Pointer[error]
	// flushedSeq is the highest Pebble sequence number flushed from the
	// memtables to tables that new iterators see (see challengeTail).
	flushedSeq *atomic.Uint64
	// tables holds idle iterators for challenge checks.
	tables *tableIters

	viewMu sync.Mutex
	cur    *view
	closed bool
	// published is closed and replaced whenever cur changes (or a sync
	// fails, or the store closes), waking waitVisible.
	published chan struct{}
	// liveViews counts snapshots not yet closed; Close waits for them
	// because Pebble must not be closed under an open snapshot.
	liveViews sync.WaitGroup

	// appenderList is closed by Close; guarded by viewMu.
	appenderList []*Appender
}

// chain is the writer's in-memory state of one validator's chain.
type chain struct {
	head  *record.Block
	ref   record.BlockRef
	tree  *record.Tree
	empty bool // no block yet
}

type options struct {
	pebble   *pebble.Options
	now      func() time.Time
	readOnly bool
	onClose  func()
	network  record.Network
	// decisionCheck is decisions.Check but in tests (WithDecisionCheck).
	decisionCheck func([]byte) error
}

// Option configures Open.
type Option func(*options)

// WithDecisionCheck replaces the network's rule (package decisions) as the
// check every decision record must pass before it is stored: for tests
// of readers that must cope with a store an earlier release wrote, whose
// `ledger import` took any canonical record (record.CheckDecision).
func WithDecisionCheck(check func([]byte) error) Option {
	return func(o *options) { o.decisionCheck = check }
}

// WithPebbleOptions replaces PebbleOptions (for tests: a vfs, small
// caches). Open still adds a logger and a block cache (see cacheSize) where
// o has none.
func WithPebbleOptions(o *pebble.Options) Option { return func(opts *options) { opts.pebble = o } }

// WithOnClose runs f once Close has closed the store: what held the
// store's directory for it (a running node's checkpoint) may then let go.
func WithOnClose(f func()) Option { return func(o *options) { o.onClose = f } }

// WithClock sets the clock block times come from (tests, vectors).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Open opens or creates the store in dir. It fails, saying what is wrong,
// if the layout version differs or any validator's head pointer disagrees
// with its stored blocks.
func Open(dir string, opts ...Option) (*Store, error) {
	return open(dir, false, opts)
}

// OpenReadOnly opens the existing store in dir for reading, with the
// checks of Open, and changes no file of it: Pebble replays the WAL into
// memory instead of flushing it, and neither rewrites its MANIFEST and
// OPTIONS nor compacts or deletes files, as it does when opened for
// writing, so an auditor's copy stays byte for byte what it was. Readers
// share the store's lock (lock.go): any number may read it at once, while
// a store open for writing, by a running node, fails with ErrLocked naming
// its process. A store on a read-only file system opens too. Every write
// fails with ErrReadOnly. A
// directory holding no Pebble database, or an empty one without the
// layout version key, fails with ErrNotStore.
func OpenReadOnly(dir string, opts ...Option) (*Store, error) {
	return open(dir, true, opts)
}

func open(dir string, readOnly bool, opts []Option) (*Store, error) {
	o := options{decisionCheck: decisions.Check, now: time.Now, readOnly: readOnly}
	for _, f := range opts {
		f(&o)
	}
	po := PebbleOptions()
	if o.pebble != nil {
		po = o.pebble.Clone()
	}
	po.ReadOnly = readOnly
	fs := po.FS
	if fs == nil {
		fs = vfs.Default
	}
	po.FS = lockFS{FS: fs, shared: readOnly}
	if po.Logger == nil {
		po.Logger = quietLogger{}
	}
	if po.Cache == nil {
		// Pebble's default 8 MiB cache cannot hold the index and filter
		// blocks of a busy log, and every challenge check then reads them
		// from disk.
		c := pebble.NewCache(cacheSize(po))
		defer c.Unref()
		po.Cache = c
	}
	flushed := new(atomic.Uint64)
	tables := new(tableIters)
	po.AddEventListener(pebble.EventListener{
		FlushEnd: func(info pebble.FlushInfo) {
			// Pebble holds its mutex here: only atomics. Epoch first
			// (see tableIters).
			tables.epoch.Add(1)
			noteFlushed(flushed, info)
		},
		CompactionEnd: func(pebble.CompactionInfo) { tables.epoch.Add(1) },
		// Without a handler Pebble reports a damaged table through
		// Logger.Fatalf, which panics in whatever goroutine read it (a
		// background compaction included): the read's own error is what
		// reaches the caller, as a failure naming the key it was after.
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			log.Printf("ledger store: damaged data in %s: %v", info.Path, info.Details)
		},
	})
	if _, err := po.FS.Stat(dir); readOnly && errors.Is(err, os.ErrNotExist) {
		// Pebble says so in an error of its own making.
		return nil, fmt.Errorf("open ledger store %s: %w: no such directory", dir, ErrNotStore)
	}
	db, err := pebble.Open(dir, po)
	if readOnly && errors.Is(err, pebble.ErrDBDoesNotExist) {
		return nil, fmt.Errorf("open ledger store %s: %w: no Pebble database", dir, ErrNotStore)
	}
	if err != nil {
		return nil, fmt.Errorf("open ledger store %s: %w", dir, err)
	}
	s := &Store{db: db, opts: o, chains: map[keys.PublicKey]*chain{}, local: map[keys.PublicKey]*Appender{}, flushedSeq: flushed, tables: tables}
	if readOnly {
		s.broken = ErrReadOnly
	}
	if err := s.checkVersion(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger store %s: %w", dir, err)
	}
	if err := s.loadChains(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger store %s: %w", dir, err)
	}
	if err := s.loadNetwork(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger store %s: %w", dir, err)
	}
	if err := s.loadHalts(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger store %s: %w", dir, err)
	}
	s.cur = s.newView()
	s.published = make(chan struct{})
	return s, nil
}

func (s *Store) checkVersion() error {
	v, closer, err := s.db.Get(layout.MetaKey)
	if errors.Is(err, pebble.ErrNotFound) {
		iter, err := s.db.NewIter(nil)
		if err != nil {
			return err
		}
		nonEmpty := iter.First()
		iter.Close()
		if nonEmpty {
			return fmt.Errorf("%w: data present but no layout version key", ErrCorrupt)
		}
		if s.opts.readOnly {
			// A ledger store has the key from its first open on; an empty
			// Pebble database is something else, or a store whose creation
			// never finished.
			return fmt.Errorf("%w: an empty database without the layout version key", ErrNotStore)
		}
		return s.writeMeta(layout.MetaKey, []byte(layout.Version))
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	if string(v) != layout.Version {
		return fmt.Errorf("store layout %q, this code reads %q", v, layout.Version)
	}
	return nil
}

// writeMeta records a meta key (the layout version in a new store, the
// store's network) at open. Pebble treats a synchronous commit whose fsync
// fails as fatal (Logger.Fatalf, a panic here); applying without waiting
// and then waiting for the sync returns the error instead, so Open on a
// failing disk fails rather than crashes.
func (s *Store) writeMeta(key, value []byte) error {
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.Set(key, value, nil); err != nil {
		return err
	}
	if err := s.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		return fmt.Errorf("%w: %w", ErrWriteFailed, err)
	}
	if err := b.SyncWait(); err != nil {
		return fmt.Errorf("%w: %w", ErrWriteFailed, err)
	}
	return nil
}

// Close waits for appenders to finish what they hold, then closes the
// database. Reads and writes after Close fail with ErrClosed.
func (s *Store) Close() error {
	s.viewMu.Lock()
	if s.closed {
		s.viewMu.Unlock()
		return ErrClosed
	}
	s.closed = true
	appenders := slices.Clone(s.appenderList) // each Close removes itself
	s.viewMu.Unlock()
	for _, a := range appenders {
		a.Close()
	}

	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.broken == nil {
		s.broken = ErrClosed
	}
	s.viewMu.Lock()
	old := s.cur
	s.cur = nil
	s.wakeLocked()
	s.viewMu.Unlock()
	s.release(old)
	s.liveViews.Wait()
	s.tables.closeAll()
	err := s.db.Close()
	if s.opts.onClose != nil {
		s.opts.onClose()
	}
	return err
}

// Err returns the failed write that made the store refuse all writes
// (wrapping ErrWriteFailed), or nil if there was none. Nothing more can be
// stored until the store is reopened, so a node should stop when it is
// set. What was acknowledged before is durable.
func (s *Store) Err() error {
	if p := s.syncFailed.Load(); p != nil {
		return *p
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if errors.Is(s.broken, ErrWriteFailed) {
		return s.broken
	}
	return nil
}

// PebbleOptions returns the Pebble options Open uses by default: bloom
// filters on every level (nearly every challenge lookup misses; L1 and
// below inherit L0's policy) and 32 MiB memtables. Open adds a block cache
// (64 MiB for blocks, see cacheSize) and a logger.
func PebbleOptions() *pebble.Options {
	o := &pebble.Options{MemTableSize: 32 << 20, Logger: quietLogger{}}
	o.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	return o
}

// blockCacheBytes is what the block cache keeps for sstable blocks: the
// index and filter blocks every challenge check reads, and recent data.
const blockCacheBytes = 64 << 20

// cacheSize is the block cache to create for o: blockCacheBytes plus what
// Pebble reserves in the cache for memtables. Pebble charges every live
// memtable's full size to the block cache (the mutable one, those queued
// for flushing, and flushed ones still referenced), so a 64 MiB cache with
// 32 MiB memtables held no blocks at all, and every challenge check read
// and decompressed index and filter blocks from the file system.
func cacheSize(o *pebble.Options) int64 {
	memtable := o.MemTableSize
	if memtable == 0 {
		memtable = 4 << 20 // Pebble's default
	}
	queued := o.MemTableStopWritesThreshold
	if queued <= 0 {
		queued = 2 // Pebble's default
	}
	// The mutable memtable, the queue, and one flushed but still
	// referenced by an iterator.
	return blockCacheBytes + int64(queued+2)*int64(memtable)
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Errorf(format string, a ...any) { log.Printf("ledger store: "+format, a...) }
func (quietLogger) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
