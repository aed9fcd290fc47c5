package epoch

import (
	"fmt"
	"math"
	"sync"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/vtrust"
)

// StandingWindow is the range of chain block numbers whose ledger blocks'
// duel results still count in epoch k as standing votes: the windows of
// the vtrust.StandingEpochs−1 epochs before k (spec/vtrust.md, "Standing
// votes"), fewer for the first epochs. k must pass CheckEpoch.
func StandingWindow(k uint64, s chain.Schedule) Window {
	return Window{From: WindowOf(vtrust.StandingSince(k), s).From, To: Boundary(k-1, s)}
}

// chainReader reads the blocks of each validator's chain an epoch needs
// and remembers, between epochs, how far each chain was read and the votes
// of its blocks that may still stand. Finding a block's duel results means
// reading every decision it links, outcome records included; without
// this, each epoch would read those of 23 windows again. Memory stays
// with the votes (a few per validator and epoch), not with the blocks,
// of which a busy validator appends thousands an epoch.
type chainReader struct {
	mu     sync.Mutex
	chains map[keys.PublicKey]*chainVotes
}

// chainVotes is what was read of one chain. Anchors never decrease along
// a chain, so heights below start hold only blocks anchored before from,
// and a chain is read by height from there.
type chainVotes struct {
	from  uint64 // the anchors from which votes are kept
	start uint64 // at or below the height of the first block anchored at or after from
	next  uint64 // the blocks below this height have been read
	kept  []keptVotes
}

// keptVotes are the votes of one block anchored at or after from and
// below next, in height order; blocks without votes are not kept.
type keptVotes struct {
	height, anchor uint64
	votes          []vtrust.Vote
}

// read calls visit for every block of v's chain anchored in [standing.From,
// w.To), in height order. For a block anchored in the standing window
// and read in an earlier pass it passes the votes kept then, with fresh
// false, and visit returns them; for every other block it passes fresh
// true, and visit reads the block's decisions and returns its votes, with
// whole false if a record could not be read (the block is then read
// again next time).
func (r *chainReader) read(s *ledger.Store, v keys.PublicKey, standing, w Window,
	visit func(b ledger.StoredBlock, kept []vtrust.Vote, fresh bool) (votes []vtrust.Vote, whole bool)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chains == nil {
		r.chains = map[keys.PublicKey]*chainVotes{}
	}
	c := r.chains[v]
	if c == nil || standing.From < c.from {
		// A first read, or an epoch before those read (the champion
		// override computes epochs again): from the start.
		c = &chainVotes{from: standing.From}
	}
	start, stop := c.start, c.start // stop: the first height this pass did not visit
	early, failed := false, uint64(math.MaxUint64)
	var kept []keptVotes
	i := 0 // into c.kept
	for b, err := range s.Blocks(v, c.start) {
		if err != nil {
			return fmt.Errorf("read blocks of %s: %w", v, err)
		}
		h, a := b.Height, b.Anchor.Number
		if a >= w.To {
			early = true
			break
		}
		stop = h + 1
		if a < standing.From {
			start = h + 1
			continue
		}
		for i < len(c.kept) && c.kept[i].height < h {
			i++
		}
		var before []vtrust.Vote
		if i < len(c.kept) && c.kept[i].height == h {
			before = c.kept[i].votes
		}
		votes, whole := visit(b, before, h >= c.next || !standing.contains(a))
		switch {
		case !whole:
			failed = min(failed, h)
		case len(votes) > 0:
			kept = append(kept, keptVotes{h, a, votes})
		}
	}
	next := stop
	if early {
		// The blocks from stop on are past this epoch; those read
		// before (for a later epoch, computed first) stay read.
		for _, k := range c.kept {
			if k.height >= stop {
				kept = append(kept, k)
			}
		}
		next = max(stop, c.next)
	}
	if failed < next {
		next = failed
		for len(kept) > 0 && kept[len(kept)-1].height >= next {
			kept = kept[:len(kept)-1]
		}
	}
	r.chains[v] = &chainVotes{from: standing.From, start: start, next: next, kept: kept}
	return nil
}
