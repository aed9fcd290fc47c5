package epoch

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/vtrust"
)

// Window is the range of chain block numbers [From, To) whose ledger
// blocks (by anchor.number) an epoch reads: epoch k reads
// [(k-1)·tempo, k·tempo), the tempo that ended when epoch k began.
type Window struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// WindowOf returns epoch k's window under the chain's epoch schedule:
// the blocks of chain epoch k−1. k must pass CheckEpoch.
func WindowOf(k uint64, s chain.Schedule) Window {
	return Window{From: Boundary(k-1, s), To: Boundary(k, s)}
}

// ErrNoEpoch: an epoch number no chain block range can hold.
var ErrNoEpoch = errors.New("no such epoch")

// CheckEpoch says whether epoch k has a window under s: epochs start at
// 1, and the window's end, where chain epoch k begins, must be a block
// number (a k past that would wrap around to a nonsense window).
func CheckEpoch(k uint64, s chain.Schedule) error {
	switch {
	case !s.Valid():
		return fmt.Errorf("%w: tempo 0", ErrNoEpoch)
	case k == 0:
		return fmt.Errorf("%w: epoch 0 reads nothing, epochs start at 1", ErrNoEpoch)
	}
	if _, ok := s.Start(k); !ok {
		last := uint64(math.MaxUint64) / s.Length
		return fmt.Errorf("%w: epoch %d ends past the last block number (the last epoch is %d)", ErrNoEpoch, k, last)
	}
	return nil
}

// Boundary is the block epoch k begins at, the end of its window: the
// first block of chain epoch k, whose state gives the epoch its
// validators, stakes, miners and starting champion (spec/vtrust.md,
// "What an epoch reads"). An epoch past the last block number begins
// at none: the largest block number stands for it.
func Boundary(k uint64, s chain.Schedule) uint64 {
	b, ok := s.Start(k)
	if !ok {
		return math.MaxUint64
	}
	return b
}

func (w Window) contains(n uint64) bool { return n >= w.From && n < w.To }

// Participants reads the epoch's validators (hotkeys with a validator
// permit, and their stake) and miners (registered hotkeys with a miner
// commitment, and its block) from the chain's state at the epoch's first
// block (Boundary), so that every validator reads the same.
func Participants(ctx context.Context, c chain.Reader) ([]vtrust.Validator, []vtrust.Miner, error) {
	m, err := c.Metagraph(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read metagraph: %w", err)
	}
	cs, err := c.Commitments(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read commitments: %w", err)
	}
	var vals []vtrust.Validator
	for _, n := range m.Neurons {
		if n.ValidatorPermit {
			vals = append(vals, vtrust.Validator{Hotkey: n.Hotkey, Stake: n.Stake})
		}
	}
	var miners []vtrust.Miner
	for _, ct := range chain.Contenders(m, cs) {
		miners = append(miners, vtrust.Miner{Hotkey: ct.Hotkey, UID: ct.UID, CommitBlock: ct.Block})
	}
	return vals, miners, nil
}

// Reading is what an epoch reads of a store (spec/vtrust.md, "What an
// epoch reads").
type Reading struct {
	// Votes are the duel results linked by blocks anchored in the
	// epoch's window; Standing those of blocks anchored in the windows
	// before it that still count (StandingWindow).
	Votes, Standing []vtrust.Vote
	// Outcomes are the auditor's own outcomes about the window's blocks
	// and the peers' ones it reproduced.
	Outcomes []vtrust.Outcome
}

// Ledger reads window w of a's store, with the standing votes of window
// standing: the duel results linked by every validator's blocks anchored
// in either, the auditor's own outcomes about the blocks of w, and the
// outcome records peers linked that the auditor reproduced (same record,
// same verdict). The blocks of the validators in skip (Equivocators) are
// not read, and no outcome about them is returned.
func (a *Auditor) Ledger(w, standing Window, skip map[keys.PublicKey]bool) (Reading, error) {
	s, own := a.store, a.Outcomes()
	var r Reading
	var peerOutcomes []vtrust.Outcome
	inWindow := map[string]bool{}
	var validators []keys.PublicKey
	for h, err := range s.Heads() {
		if err != nil {
			return Reading{}, fmt.Errorf("read chain heads: %w", err)
		}
		if !skip[h.Block.Validator] {
			validators = append(validators, h.Block.Validator)
		}
	}
	for _, v := range validators {
		err := a.chains.read(s, v, standing, w, func(b ledger.StoredBlock, kept []vtrust.Vote, fresh bool) ([]vtrust.Vote, bool) {
			votes, whole := kept, true
			if w.contains(b.Anchor.Number) {
				inWindow[b.CID.KeyString()] = true
				var outcomes []vtrust.Outcome
				votes, outcomes, whole = blockDecisions(s, b, a.self)
				r.Votes = append(r.Votes, votes...)
				peerOutcomes = append(peerOutcomes, outcomes...)
				return votes, whole
			}
			if fresh {
				votes, _, whole = blockDecisions(s, b, a.self)
			}
			r.Standing = append(r.Standing, votes...)
			return votes, whole
		})
		if err != nil {
			return Reading{}, err
		}
	}
	mine := map[string]vtrust.Verdict{}
	for _, o := range own {
		if inWindow[o.Block.Cid.KeyString()] {
			r.Outcomes = append(r.Outcomes, o)
			mine[claimKey(o)] = o.Verdict
		}
	}
	for _, o := range peerOutcomes {
		// spec/vtrust.md: an outcome is fed only once the node reached the
		// same verdict itself, about the same validator, block and record:
		// matched on the record alone, a genuine fault relabelled with
		// another validator would zero that one.
		if v, ok := mine[claimKey(o)]; ok && v == o.Verdict {
			r.Outcomes = append(r.Outcomes, o)
		}
	}
	return r, nil
}

// blockDecisions returns the votes block b links and the outcome records
// its validator (not self) recorded as auditor; whole is false when a
// record could not be read.
func blockDecisions(s *ledger.Store, b ledger.StoredBlock, self keys.PublicKey) (votes []vtrust.Vote, outcomes []vtrust.Outcome, whole bool) {
	whole = true
	for _, d := range b.Decisions {
		raw, err := s.Object(d.Cid)
		if err != nil {
			whole = false
			continue // not replicated yet: nothing to read
		}
		if r, err := duel.Decode(raw); err == nil {
			votes = append(votes, vtrust.VoteOf(b.Validator, d.Cid, r))
			continue
		}
		if o, err := vtrust.DecodeOutcome(raw); err == nil && o.Auditor == b.Validator && o.Auditor != self {
			outcomes = append(outcomes, o)
		}
	}
	return votes, outcomes, whole
}

// claimKey names what an outcome claims something about: the validator,
// its block and the record. The node's own outcomes name only blocks of
// their validator, so a peer's outcome matching one is about that block.
func claimKey(o vtrust.Outcome) string {
	return string(o.Validator[:]) + o.Block.Cid.KeyString() + o.Record.Cid.KeyString()
}
