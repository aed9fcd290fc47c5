package verify

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
)

// batchSize is how many transcripts are fetched and checked in parallel
// ahead of the in-order checks: enough to keep every core busy, few enough
// that memory stays a small multiple of one transcript.
const batchSize = 64

// item is one transcript of a batch: what the parallel stage found.
type item struct {
	raw      []byte
	fetchErr error
	t        *ledger.Transcript
	// err is the first failure of steps T1-T3; reexecErr that of T6,
	// reported only if T4 and T5 (in order, sequential) pass.
	err       error
	reexecErr error
}

// prepare fetches (in order, or concurrently if the source allows) and
// checks the links in parallel: the steps of a transcript that depend on
// nothing but its bytes. A fetch error ends the batch at that index for a
// sequential source, whose position is then lost.
func (vf *Verifier) prepare(b *ledger.Block, links []codec.Link, fetch Fetch) []item {
	items := make([]item, len(links))
	if !vf.opts.ConcurrentFetch {
		for i, l := range links {
			items[i].raw, items[i].fetchErr = fetch(l.Cid)
			if items[i].fetchErr != nil {
				items = items[:i+1]
				break
			}
		}
	}
	workers := vf.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) {
					return
				}
				it := &items[i]
				if vf.opts.ConcurrentFetch {
					it.raw, it.fetchErr = fetch(links[i].Cid)
				}
				if it.fetchErr == nil {
					vf.check(b, links[i].Cid, it)
				}
			}
		}()
	}
	wg.Wait()
	return items
}

// check runs the parallel steps on one fetched transcript: T1 its bytes
// against the link, T2 well-formedness, T3 the validator, and T6
// re-execution if enabled.
func (vf *Verifier) check(b *ledger.Block, c cid.Cid, it *item) {
	if err := codec.CheckCID(it.raw, c); err != nil {
		it.err = fmt.Errorf("bytes do not match the link: %w", err)
		return
	}
	t, err := ledger.DecodeTranscript(it.raw)
	if err != nil {
		it.err = err
		return
	}
	if t.Validator != b.Validator {
		it.err = fmt.Errorf("names validator %s, the block's is %s", t.Validator, b.Validator)
		return
	}
	it.t = t
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
	t := it.t
	at := Location{Height: b.Height, Index: uint32(index)}
	prior, dup, err := vf.opts.Challenges.Add(ch.v, t.Miner.Hotkey, t.Challenge, at)
	if err != nil {
		return fmt.Errorf("challenge set: %w", err)
	}
	if dup {
		return fmt.Errorf("%v: challenge %s was put to miner %s at height %d transcript %d", ledger.ErrChallengeReused, t.Challenge, t.Miner.Hotkey, prior.Height, prior.Index)
	}
	if ch.seeds.match(t.Challenge) {
		vf.rep.SeedsDerived++
	} else {
		vf.rep.SeedsUnverified++
		if vf.opts.StrictSeeds {
			return fmt.Errorf("seed of challenge %s is not derived from the anchor of this block or of the %d before it with a counter in the window", t.Challenge, recentAnchors-1)
		}
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
