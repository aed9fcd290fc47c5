package verify

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// ahead is how many transcripts may be fetched and checked ahead of the
// in-order checks: enough to keep every core busy, few enough that memory
// stays a small multiple of one transcript.
const ahead = 64

// source is where a block's objects come from: fetch, called in link
// order from one goroutine (a stream), or visit, which may be called from
// several goroutines at once and lends fn the bytes for the duration of
// the call (a store: no copy per object).
type source struct {
	fetch Fetch
	visit func(c cid.Cid, fn func(raw []byte) error) error
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
	done      chan struct{} // closed once the fields above are final
}

// pipeline checks the transcripts of one block in parallel (the steps
// that depend on nothing but a transcript's bytes), at most ahead of them
// in front of the in-order stage that consumes them with next, so that
// the workers never wait for a batch to drain. A stream is read in link
// order by one goroutine, which stops at its first fetch error (the
// stream's position is then lost); a store is read by the workers.
type pipeline struct {
	vf    *Verifier
	b     *ledger.Block
	items []item
	// slots holds a token per transcript claimed and not yet consumed.
	slots   chan struct{}
	quit    chan struct{}
	stopped bool
	claim   atomic.Int64
	wg      sync.WaitGroup
}

func (vf *Verifier) startPipeline(b *ledger.Block, src source) *pipeline {
	links := b.Transcripts
	p := &pipeline{vf: vf, b: b, items: make([]item, len(links)), slots: make(chan struct{}, ahead), quit: make(chan struct{})}
	for i := range p.items {
		p.items[i].done = make(chan struct{})
	}
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
	work := make(chan int, ahead)
	p.wg.Go(func() {
		defer close(work)
		for i, l := range links {
			if !p.take() {
				return
			}
			it := &p.items[i]
			it.raw, it.fetchErr = src.fetch(l.Cid)
			if it.fetchErr != nil {
				close(it.done)
				return
			}
			work <- i
		}
	})
	for range workers {
		p.wg.Go(func() {
			for i := range work {
				it := &p.items[i]
				vf.check(b, links[i].Cid, it.raw, it)
				it.raw = nil
				close(it.done)
			}
		})
	}
	return p
}

// visitLoop is a worker of a concurrent source: it claims the next
// transcript, reads it in place and checks it.
func (p *pipeline) visitLoop(links []codec.Link, visit func(cid.Cid, func([]byte) error) error) {
	for p.take() {
		i := int(p.claim.Add(1) - 1)
		if i >= len(links) {
			return
		}
		it := &p.items[i]
		read := false
		err := visit(links[i].Cid, func(raw []byte) error {
			read = true
			p.vf.check(p.b, links[i].Cid, raw, it)
			return nil
		})
		if !read {
			it.fetchErr = err
		}
		close(it.done)
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

// next waits for transcript i (consumed in order) and frees its slot.
func (p *pipeline) next(i int) *item {
	it := &p.items[i]
	<-it.done
	<-p.slots
	return it
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
// ID's decoder copies its env name: TestCheckKeepsNothingOfRaw).
type transcriptKeys struct {
	challenge challenge.ID
	miner     keys.PublicKey
	seed      *ledger.Seed // nil in format 1
}

// check runs the parallel steps on one fetched transcript: T1 its bytes
// against the link, T2 well-formedness, T3 the validator, and T6
// re-execution if enabled. raw is not kept: without re-execution the
// transcript is decoded in place, since only its keys outlive the call.
func (vf *Verifier) check(b *ledger.Block, c cid.Cid, raw []byte, it *item) {
	it.size = len(raw)
	if err := codec.CheckCID(raw, c); err != nil {
		it.err = fmt.Errorf("bytes do not match the link: %w", err)
		return
	}
	decode := ledger.DecodeTranscriptBorrowed
	if vf.opts.Reexecute {
		// An env's error may keep a piece of the answer it read.
		decode = ledger.DecodeTranscript
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
	it.keys = transcriptKeys{challenge: t.Challenge, miner: t.Miner.Hotkey, seed: t.Seed}
	if vf.opts.Reexecute {
		it.reexecErr = Reexecute(t)
	}
}

// transcript finishes transcript index of block b in log order: the
// parallel stage's verdict on T1-T3, then T4 challenge uniqueness and T5
// seed derivation, then T6's verdict. It appends the leaf to the log.
func (vf *Verifier) transcript(b *ledger.Block, index int, it *item) error {
	ch := vf.ch
	if it.err != nil {
		return it.err
	}
	t := it.keys
	at := Location{Height: b.Height, Index: uint32(index)}
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
	appendLeaf(ch.tree, b.Transcripts[index].Cid)
	if vf.opts.Reexecute {
		vf.rep.Reexecuted++
		if it.reexecErr != nil {
			return it.reexecErr
		}
	}
	return nil
}
