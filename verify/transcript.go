package verify

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ahead is how many transcripts may be fetched and checked ahead of the
// in-order checks: enough to keep every core busy, few enough that memory
// stays a small multiple of one transcript.
const ahead = 64

// source is where a block's objects come from: fetch, called in link
// order by one goroutine at a time (a stream), or visit, which may be
// called from several goroutines at once and lends fn the bytes for the
// duration of the call (a store: no copy per object). release, if set, takes back the
// bytes of a transcript fetch returned once its check is over (a stream
// reads later objects into them).
type source struct {
	fetch   Fetch
	visit   func(c cid.Cid, fn func(raw []byte) error) error
	release func(raw []byte)
}

func (s source) concurrent() bool { return s.visit != nil }

// read calls fn with the bytes of c, for the in-order stage (decisions).
func (s source) read(c cid.Cid, fn func(raw []byte) error) error {
	if s.visit != nil {
		return s.visit(c, fn)
	}
	raw, err := s.fetch(c)
	if err != nil {
		return err
	}
	return fn(raw)
}

// item is one transcript of a block: what the parallel stage found.
type item struct {
	raw      []byte // a stream's bytes, until checked
	size     int
	fetchErr error
	keys     transcriptKeys
	// err is the first failure of steps T1-T3; reexecErr that of T6,
	// reported only if T4 and T5 (in order, sequential) pass.
	err       error
	reexecErr error
	// ready is set once the fields above are final.
	ready atomic.Bool
}

// pipeline checks the transcripts of one block in parallel (the steps
// that depend on nothing but a transcript's bytes), at most ahead of them
// in front of the in-order stage, so that the workers never wait for a
// batch to drain. Both sources are read by the workers: a stream in link
// order, one worker at a time, up to its first fetch error (the stream's
// position is then lost: streamReader); a store concurrently.
//
// The in-order stage runs on whichever goroutine finds the next transcript
// ready: the worker that finished it, or the caller of inOrder. A stage of
// its own would wait for a core behind busy workers and fall up to ahead
// transcripts behind, and then finish every block alone, with the other
// core idle (an execution trace of the 4 KiB archive benchmark showed a
// quarter of each block spent so).
type pipeline struct {
	vf    *Verifier
	b     *record.Block
	items []item
	// slots holds a token per transcript claimed and not yet consumed.
	slots   chan struct{}
	quit    chan struct{}
	stopped bool
	claim   atomic.Int64
	wg      sync.WaitGroup

	// mu is held by the goroutine running the in-order stage; the fields
	// below are its state.
	mu sync.Mutex
	// consume is the in-order stage, nil until inOrder starts it.
	consume func(i int, it *item) error
	next    int   // the next transcript to consume
	failed  int   // the transcript that failed, if err is set
	err     error // the in-order stage's first failure
	over    bool  // every transcript consumed, or one failed
	// finished is closed when over is set.
	finished chan struct{}
	// stalled, if set, is called where drain stops at a transcript not
	// ready, with p.mu held: a test makes the transcript ready there.
	stalled func(i int)
}

func (vf *Verifier) startPipeline(b *record.Block, src source) *pipeline {
	links := b.Transcripts
	p := &pipeline{vf: vf, b: b, items: make([]item, len(links)), slots: make(chan struct{}, ahead), quit: make(chan struct{}), finished: make(chan struct{})}
	workers := vf.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(links))
	if src.concurrent() {
		for range workers {
			p.wg.Go(func() { p.visitLoop(links, src.visit) })
		}
		return p
	}
	r := &streamReader{p: p, links: links, fetch: src.fetch}
	for range workers {
		p.wg.Go(func() { r.loop(src.release) })
	}
	return p
}

// visitLoop is a worker of a concurrent source: it claims the next
// transcript, reads it in place and checks it.
func (p *pipeline) visitLoop(links []codec.Link, visit func(cid.Cid, func([]byte) error) error) {
	var dec record.TranscriptDecoder
	for p.take() {
		i := int(p.claim.Add(1) - 1)
		if i >= len(links) {
			return
		}
		it := &p.items[i]
		read := false
		err := visit(links[i].Cid, func(raw []byte) error {
			read = true
			p.vf.check(p.b, links[i].Cid, raw, it, &dec)
			return nil
		})
		if !read {
			it.fetchErr = err
		}
		p.done(it)
	}
}

// take waits for a slot; false once the pipeline is stopped.
func (p *pipeline) take() bool {
	select {
	case p.slots <- struct{}{}:
		return true
	case <-p.quit:
		return false
	}
}

// done marks it final and runs the in-order stage if it is waiting.
func (p *pipeline) done(it *item) {
	it.ready.Store(true)
	p.advance()
}

// advance consumes, in order, the transcripts that are ready, unless
// another goroutine is doing so. The goroutine doing so may have found the
// next transcript not ready just before it became so, and its finisher's
// TryLock then fails: so after unlocking, the transcript it stopped at is
// looked at again (a transcript marked ready before a TryLock fails is
// seen by the goroutine that held the lock, once it has unlocked).
func (p *pipeline) advance() {
	for p.mu.TryLock() {
		w := p.drain()
		p.mu.Unlock()
		if w < 0 || !p.items[w].ready.Load() {
			return
		}
	}
}

// drain consumes the transcripts that are ready, in order; p.mu is held.
// It returns the transcript it stopped at, not ready, or -1 when the
// stage has nothing to do (not started, or over).
func (p *pipeline) drain() int {
	if p.consume == nil || p.over {
		return -1
	}
	for p.next < len(p.items) {
		it := &p.items[p.next]
		if !it.ready.Load() {
			if p.stalled != nil {
				p.stalled(p.next)
			}
			return p.next
		}
		if err := p.consume(p.next, it); err != nil {
			p.failed, p.err = p.next, err
			break
		}
		p.next++
		<-p.slots
	}
	p.over = true
	close(p.finished)
	return -1
}

// inOrder runs consume on every transcript in order, each as soon as it
// is ready, on whichever goroutine finds it so, and returns at the end or
// at the first error with the index of the transcript that failed.
func (p *pipeline) inOrder(consume func(i int, it *item) error) (int, error) {
	p.mu.Lock()
	p.consume = consume
	p.mu.Unlock()
	p.advance()
	<-p.finished
	return p.failed, p.err
}

// stop ends the pipeline, waiting for work in flight: the source is not
// used after stop returns.
func (p *pipeline) stop() {
	if !p.stopped {
		p.stopped = true
		close(p.quit)
		p.wg.Wait()
	}
}

// transcriptKeys is what the in-order steps (T4, T5) need of a
// transcript; it holds no memory of the transcript's bytes (a challenge
// ID's decoder copies its env name) nor of its decoded value, which the
// worker's decoder reuses (TestCheckKeepsNothingOfRaw).
type transcriptKeys struct {
	challenge challenge.ID
	miner     keys.PublicKey
	reward    int64
	duel      record.DuelID
	// seeded is false in format 1, which records no seed; seedAnchor is
	// the anchor a format-2 seed names.
	seeded     bool
	seedAnchor record.Anchor
}

// check runs the parallel steps on one fetched transcript: T1 its bytes
// against the link, T2 well-formedness, T3 the validator, and T6
// re-execution if enabled. raw is not kept: without re-execution the
// transcript is decoded in place by the worker's dec, since only its keys
// outlive the call.
func (vf *Verifier) check(b *record.Block, c cid.Cid, raw []byte, it *item, dec *record.TranscriptDecoder) {
	it.size = len(raw)
	if err := codec.CheckCID(raw, c); err != nil {
		it.err = fmt.Errorf("bytes do not match the link: %w", err)
		return
	}
	decode := dec.Decode
	if vf.opts.Reexecute {
		// An env's error may keep a piece of the answer it read.
		decode = record.DecodeTranscript
	}
	t, err := decode(raw)
	if err != nil {
		it.err = err
		return
	}
	if t.Validator != b.Validator {
		it.err = fmt.Errorf("names validator %s, the block's is %s", t.Validator, b.Validator)
		return
	}
	it.keys = transcriptKeys{challenge: t.Challenge, miner: t.Miner.Hotkey, reward: t.Reward, duel: t.Duel}
	if t.Seed != nil {
		it.keys.seeded, it.keys.seedAnchor = true, t.Seed.Anchor
	}
	if vf.opts.Reexecute {
		it.reexecErr = Reexecute(t)
	}
}

// transcript finishes transcript index of block b in log order: the
// parallel stage's verdict on T1-T3, then T4 challenge uniqueness and T5
// seed derivation, then T6's verdict. It appends the leaf to the log.
func (vf *Verifier) transcript(b *record.Block, index int, it *item) error {
	ch := vf.ch
	if it.err != nil {
		return it.err
	}
	t := it.keys
	at := Location{Height: b.Height, Index: uint32(index), Reward: t.reward, Duel: t.duel}
	prior, dup, err := vf.opts.Challenges.Add(ch.v, t.miner, t.challenge, at)
	if err != nil {
		return fmt.Errorf("challenge set: %w", err)
	}
	if dup {
		return fmt.Errorf("%v: challenge %s was put to miner %s at height %d transcript %d", ledger.ErrChallengeReused, t.challenge, t.miner, prior.Height, prior.Index)
	}
	if err := vf.checkSeed(b, t); err != nil {
		return err
	}
	var visit compact.VisitFn
	if ch.nodes != nil {
		visit = ch.nodes.visit
	}
	leaf := ch.tree.End()
	appendLeaf(ch.tree, b.Transcripts[index].Cid, visit)
	if ch.indexes != nil {
		ch.indexes.appended(ledger.IndexedTranscript{
			Ref:   ledger.TranscriptRef{Validator: ch.v, Leaf: leaf, Height: b.Height, CID: b.Transcripts[index].Cid},
			Miner: t.miner, Challenge: t.challenge, Duel: t.duel,
		})
	}
	if vf.opts.Reexecute {
		vf.rep.Reexecuted++
		if it.reexecErr != nil {
			return it.reexecErr
		}
	}
	return nil
}
