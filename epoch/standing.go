package epoch

import (
	"sync"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/vtrust"
)

// StandingWindow is the range of chain block numbers whose ledger blocks'
// duel results still count in epoch k as standing votes: the windows of
// the vtrust.StandingEpochs−1 epochs before k (spec/vtrust.md, "Standing
// votes"), fewer for the first epochs. k must pass CheckEpoch.
func StandingWindow(k uint64, s chain.Schedule) Window {
	var first uint64
	if k > vtrust.StandingEpochs {
		first = k - vtrust.StandingEpochs
	}
	return Window{From: Boundary(first, s), To: Boundary(k-1, s)}
}

// blockVotes remembers the votes of each block an epoch read, by block
// CID, for the epochs after it. A block never changes, and finding its
// duel results means reading every decision it links: without this, each
// epoch would read again the outcome records of all the standing windows,
// 23 times what it reads of its own.
type blockVotes struct {
	mu     sync.Mutex
	blocks map[string][]vtrust.Vote
}

// begin starts a pass over the store; end keeps what the pass read or
// found in the cache and forgets the rest (blocks anchored before every
// range an epoch will read from now on, as epochs move forward).
func (c *blockVotes) begin() *votePass {
	c.mu.Lock()
	return &votePass{c: c, seen: map[string][]vtrust.Vote{}}
}

type votePass struct {
	c    *blockVotes
	seen map[string][]vtrust.Vote
}

func (p *votePass) get(b ledger.StoredBlock) ([]vtrust.Vote, bool) {
	v, ok := p.c.blocks[b.CID.KeyString()]
	if ok {
		p.seen[b.CID.KeyString()] = v
	}
	return v, ok
}

func (p *votePass) keep(b ledger.StoredBlock, votes []vtrust.Vote) {
	p.seen[b.CID.KeyString()] = votes
}

func (p *votePass) end() {
	p.c.blocks = p.seen
	p.c.mu.Unlock()
}
