package ledger

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Appender writes the local validator's chain. Concurrent Add and Append
// calls are group-committed: a commit loop takes every queued request (up to
// a block's worth), builds one block, and applies it as one Pebble batch
// committed with pebble.Sync; a second goroutine (or the loop itself, when
// no other request waits) waits for that batch's fsync, publishes it to
// readers and only then answers its requests. The
// loop may build and apply the next block while the previous one syncs
// (Pebble then syncs both with one fsync), at most two blocks ahead, and
// requests gather meanwhile; so throughput follows the disk's sync rate
// times the group size, not one fsync per transcript.
//
// A request is never split across blocks: its transcripts get consecutive
// leaves in one block. While an appender runs, the store refuses peers'
// blocks that would extend its validator's chain (see Put).
type Appender struct {
	s        *Store
	key      *keys.Hotkey
	maxBatch int
	maxWait  time.Duration
	// resume and resumed: ResumeSigning, and the halt NewAppender cleared.
	resume  bool
	resumed *HaltedError

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	queue  chan *appendReq
	// synced carries applied blocks to the goroutine that waits for their
	// fsync and answers their requests; its capacity bounds how many
	// blocks may be waiting for durability at once.
	synced chan syncing
	// unanswered counts the blocks sent on synced and not yet answered.
	unanswered atomic.Int32
	done       chan struct{}

	// reserved holds the challenges of requests accepted by Add and not
	// yet applied or dropped. Add checks the log (which holds every
	// applied block) and this set, so the commit loop need not read.
	reservedMu sync.Mutex
	reserved   map[string]struct{}
	// tail holds the challenges of applied blocks that may not be flushed
	// to Pebble's tables yet (see challengeTail).
	tail *challengeTail
}

// Receipt is the answer to one request once its block is durable.
type Receipt struct {
	Block record.BlockRef
	// Checkpoint is the log after the block.
	Checkpoint record.Checkpoint
	// Transcripts are the CIDs of the request's transcripts in order, the
	// first at leaf FirstLeaf.
	Transcripts []cid.Cid
	FirstLeaf   uint64
	Decisions   []cid.Cid
}

// Future resolves once the request's block is durable, or failed.
type Future func() (Receipt, error)

type appendReq struct {
	ctx       context.Context
	anchor    record.Anchor
	leaves    []leafRecord
	decisions []encoded
	// size is the summed bytes of leaves and decisions, which one block
	// may hold at most record.MaxBlockObjectBytes of.
	size  int
	reply chan appendResult
}

type appendResult struct {
	r   Receipt
	err error
}

// AppenderOption configures NewAppender.
type AppenderOption func(*Appender)

// WithMaxBatch caps the transcripts of one block (default and maximum
// MaxTranscriptsPerBlock).
func WithMaxBatch(n int) AppenderOption {
	return func(a *Appender) {
		if n > 0 && n <= record.MaxTranscriptsPerBlock {
			a.maxBatch = n
		}
	}
}

// WithMaxWait makes the commit loop wait up to d for more requests before
// building a block that is not full (default 0: take what is queued; the
// previous block's fsync already gathers requests).
func WithMaxWait(d time.Duration) AppenderOption { return func(a *Appender) { a.maxWait = d } }

// NewAppender starts the commit loop of key's chain. One appender per key
// at a time; Close it (or the store) to stop.
func (s *Store) NewAppender(key *keys.Hotkey, opts ...AppenderOption) (*Appender, error) {
	if s.opts.readOnly {
		return nil, fmt.Errorf("ledger store: new appender: %w", ErrReadOnly)
	}
	a := &Appender{
		s: s, key: key, maxBatch: record.MaxTranscriptsPerBlock,
		queue: make(chan *appendReq, 1024), synced: make(chan syncing, 1), done: make(chan struct{}),
		reserved: map[string]struct{}{}, tail: newChallengeTail(s.flushedSeq),
	}
	for _, o := range opts {
		o(a)
	}
	if err := s.register(a); err != nil {
		return nil, err
	}
	// From now on only a writes the validator's challenges; flushing puts
	// every one written before (by Put, or replayed from the WAL) in the
	// tables that challenge checks read besides a's tail. The read lock
	// keeps Close (and so the store's) from closing the database under the
	// flush.
	a.mu.RLock()
	err := a.flushForChecks()
	a.mu.RUnlock()
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *Appender) flushForChecks() error {
	if a.closed {
		return fmt.Errorf("ledger store: %w", ErrClosed)
	}
	if err := a.s.db.Flush(); err != nil {
		return fmt.Errorf("ledger store: new appender: flush: %w", err)
	}
	return nil
}

// register makes a the appender of its key's chain and starts its loop.
func (s *Store) register(a *Appender) error {
	v := a.key.Public()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	if s.closed {
		return fmt.Errorf("ledger store: %w", ErrClosed)
	}
	if _, busy := s.local[v]; busy {
		return fmt.Errorf("ledger store: validator %s already has an appender", v)
	}
	if s.Network().IsZero() {
		return fmt.Errorf("ledger store: validator %s: %w: open the store WithNetwork to write blocks", v, ErrNoNetwork)
	}
	if ch, ok := s.chains[v]; ok && ch.head.Format != record.BlockFormat {
		return fmt.Errorf("ledger store: validator %s: %w: its chain is of format-%d blocks, which name no network; it cannot be extended", v, ErrWrongNetwork, ch.head.Format)
	}
	if err := s.clearHalt(a, v); err != nil {
		return fmt.Errorf("ledger store: new appender: %w", err)
	}
	s.local[v] = a
	s.appenderList = append(s.appenderList, a)
	go a.run()
	return nil
}

// Append adds transcripts and decisions to the chain and returns once the
// block holding them is durable. See Add.
func (a *Appender) Append(ctx context.Context, anchor record.Anchor, transcripts []record.Transcript, decisions [][]byte) (Receipt, error) {
	return a.Add(ctx, anchor, transcripts, decisions)()
}

// Add checks and queues transcripts and decisions for the next block and
// returns a Future. Every transcript must name the appender's validator and
// use a challenge ID its log has not used with the same miner
// (ErrChallengeReused, also when two pending requests share one). anchor is the newest chain block the
// caller knows; a block takes the newest anchor of its requests (never
// older than its parent's). If ctx ends before the request is taken into a
// block, nothing is written and the Future returns ctx's error.
func (a *Appender) Add(ctx context.Context, anchor record.Anchor, transcripts []record.Transcript, decisions [][]byte) Future {
	failed := func(err error) Future { return func() (Receipt, error) { return Receipt{}, err } }
	// The read lock keeps Close (and so the store's Close) from closing the
	// database under prepare's log reads and from closing the queue under
	// the send.
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		return failed(fmt.Errorf("appender: %w", ErrClosed))
	}
	req, err := a.prepare(ctx, anchor, transcripts, decisions)
	if err != nil {
		return failed(err)
	}
	select {
	case a.queue <- req:
	case <-ctx.Done():
		a.unreserve(req.leaves)
		return failed(ctx.Err())
	}
	var once sync.Once
	var res appendResult
	return func() (Receipt, error) {
		once.Do(func() { res = <-req.reply })
		return res.r, res.err
	}
}

func (a *Appender) prepare(ctx context.Context, anchor record.Anchor, transcripts []record.Transcript, decisions [][]byte) (*appendReq, error) {
	if len(transcripts) > a.maxBatch {
		return nil, fmt.Errorf("append: %d transcripts in one request, max %d", len(transcripts), a.maxBatch)
	}
	if len(decisions) > record.MaxDecisionsPerBlock {
		return nil, fmt.Errorf("append: %d decisions in one request, max %d", len(decisions), record.MaxDecisionsPerBlock)
	}
	v := a.key.Public()
	req := &appendReq{ctx: ctx, anchor: anchor, reply: make(chan appendResult, 1)}
	seen := map[string]int{}
	for i := range transcripts {
		t := &transcripts[i]
		if t.Validator != v {
			return nil, fmt.Errorf("append: transcript %d names validator %s, the appender's is %s", i, t.Validator, v)
		}
		// Older formats stay readable, in peers' blocks and old logs, but
		// writers write the current one only (spec/ledger.md, Format 1).
		if t.Format != record.TranscriptFormat {
			return nil, fmt.Errorf("append: transcript %d: %w: format %d, writers write format %d only", i, record.ErrMalformed, t.Format, record.TranscriptFormat)
		}
		raw, c, err := t.Encode()
		if err != nil {
			return nil, fmt.Errorf("append: transcript %d: %w", i, err)
		}
		tc := *t
		l, err := newLeafRecord(&tc, raw, c)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[string(l.challenge)]; dup {
			return nil, fmt.Errorf("append: transcripts %d and %d: challenge %s with miner %s: %w", j, i, t.Challenge, t.Miner.Hotkey, ErrChallengeReused)
		}
		seen[string(l.challenge)] = i
		req.leaves = append(req.leaves, l)
		req.size += len(raw)
	}
	for i, d := range decisions {
		if err := a.s.opts.decisionCheck(d); err != nil {
			return nil, fmt.Errorf("append: decision %d: %w", i, err)
		}
		e := encoded{raw: append([]byte(nil), d...), cid: codec.Sum(d)}
		// A block links a CID once (spec/ledger.md).
		for j, o := range req.decisions {
			if o.cid.Equals(e.cid) {
				return nil, fmt.Errorf("append: decisions %d and %d are the same record %s: %w", j, i, e.cid, record.ErrMalformed)
			}
		}
		for j, l := range req.leaves {
			if l.cid.Equals(e.cid) {
				return nil, fmt.Errorf("append: decision %d is transcript %d (%s): %w", i, j, e.cid, record.ErrMalformed)
			}
		}
		req.decisions = append(req.decisions, e)
		req.size += len(d)
	}
	if req.size > record.MaxBlockObjectBytes {
		return nil, fmt.Errorf("append: the request's transcripts and decisions total %d bytes, more than one block may link (%d)", req.size, record.MaxBlockObjectBytes)
	}
	if err := a.reserve(req.leaves); err != nil {
		return nil, err
	}
	return req, nil
}

// reserve claims the leaves' challenges: none may be pending in another
// request or present in the log. Claiming first and reading the log second
// closes the race with a request being applied meanwhile: its challenges
// stay reserved until its batch is applied, and from then on the log has
// them.
func (a *Appender) reserve(leaves []leafRecord) error {
	a.reservedMu.Lock()
	for _, l := range leaves {
		if _, taken := a.reserved[string(l.challenge)]; taken {
			a.reservedMu.Unlock()
			return fmt.Errorf("append: challenge %s with miner %s is in a pending request: %w", l.t.Challenge, l.t.Miner.Hotkey, ErrChallengeReused)
		}
	}
	for _, l := range leaves {
		a.reserved[string(l.challenge)] = struct{}{}
	}
	a.reservedMu.Unlock()
	for _, l := range leaves {
		used, err := a.s.challengeUsedLocal(a.tail, a.key.Public(), l.challenge)
		if err == nil && used {
			err = fmt.Errorf("append: challenge %s with miner %s is in the log: %w", l.t.Challenge, l.t.Miner.Hotkey, ErrChallengeReused)
		}
		if err != nil {
			a.unreserve(leaves)
			return err
		}
	}
	return nil
}

func (a *Appender) unreserve(leaves []leafRecord) {
	a.reservedMu.Lock()
	for _, l := range leaves {
		delete(a.reserved, string(l.challenge))
	}
	a.reservedMu.Unlock()
}

// Close stops accepting requests, commits what is queued, and waits until
// every request has been answered.
func (a *Appender) Close() error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.queue)
	}
	a.mu.Unlock()
	<-a.done
	s := a.s
	s.writeMu.Lock()
	if s.local[a.key.Public()] == a {
		delete(s.local, a.key.Public())
	}
	s.writeMu.Unlock()
	// A store whose appenders come and go (a key rotated) must not keep
	// every closed one, with its challenge tail, until it closes.
	s.viewMu.Lock()
	s.appenderList = slices.DeleteFunc(s.appenderList, func(o *Appender) bool { return o == a })
	s.viewMu.Unlock()
	return nil
}
