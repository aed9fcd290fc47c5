package epoch

import (
	"bytes"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/vtrust"
)

// consensusView is an epoch as the validator's duel loop reads it
// (validator.ConsensusView): its winner, and what it made of each pair.
type consensusView struct {
	epoch    uint64
	schedule chain.Schedule
	out      vtrust.Output
	crowning *vtrust.Vote
}

// ConsensusChampion returns the winner of the last epoch computed, which
// the next epoch starts from; ok is false before the first.
func (d *Driver) ConsensusChampion() (duel.Side, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.consensus == nil {
		return duel.Side{}, false
	}
	return d.consensus.out.Champion, true
}

// DethronePending reports whether a dethrone of champion by contender,
// in a duel started at chain block start, may still move the consensus
// after the last epoch computed: a vote cast in the epoch whose window
// holds start, or a later one, still stands in the next epoch
// (vtrust.StandingSince), unless that epoch's votes for the champion
// already weigh at least half of its total, which no vote for the
// contender can pass while they stand. Before the first epoch every
// dethrone is pending.
func (d *Driver) DethronePending(champion, contender duel.Side, start uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.consensus
	if c == nil {
		return true
	}
	// Epoch k's window is chain epoch k-1: a result recorded in a block
	// anchored at or after start is cast in this epoch or a later one.
	if cast := c.schedule.Of(start) + 1; cast < vtrust.StandingSince(c.epoch+1) {
		return false
	}
	for _, p := range c.out.Duels {
		if p.Champion.Equal(champion) && p.Contender.Equal(contender) {
			return p.Against.Double().Cmp(c.out.Total) < 0
		}
	}
	return true
}

// Crowning returns where the duel result that crowned champion, the
// consensus champion, is: the validator whose chain records it and its
// CID (crowningVote). ok is false before the first epoch, for another
// champion, and when no vote that crowned it counted in the last epoch
// computed (it was crowned more than 24 epochs before).
func (d *Driver) Crowning(champion duel.Side) (validator keys.PublicKey, record cid.Cid, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.consensus
	if c == nil || c.crowning == nil || !c.out.Champion.Equal(champion) {
		return keys.PublicKey{}, cid.Undef, false
	}
	return c.crowning.Validator, c.crowning.Record.Cid, true
}

// crowningVote returns, of the votes an epoch counted (its window's and
// the standing ones), one that crowned its winner: a vote for the
// contender, whose contender is the winner, on a pair whose consensus
// winner is the contender. Of several, the one with the latest start
// (the last time the champion changed to the winner), then the smallest
// record CID. nil when there is none: the winner was crowned before the
// votes that still stand, or is the first champion.
func crowningVote(out vtrust.Output, lists ...[]vtrust.Vote) *vtrust.Vote {
	won := map[string]bool{}
	for _, p := range out.Duels {
		if p.Winner == duel.Contender.String() && p.Contender.Equal(out.Champion) {
			won[pairKey(p.Champion, p.Contender)] = true
		}
	}
	var best *vtrust.Vote
	for _, votes := range lists {
		for i := range votes {
			v := &votes[i]
			if v.Winner != duel.Contender.String() || !won[pairKey(v.Champion, v.Contender)] {
				continue
			}
			if best != nil && (v.Start < best.Start || v.Start == best.Start && bytes.Compare(v.Record.Cid.Bytes(), best.Record.Cid.Bytes()) >= 0) {
				continue
			}
			best = v
		}
	}
	if best == nil {
		return nil
	}
	v := *best
	return &v
}

// pairKey is a pair's map key: each side's hotkey, model hash length and
// model hash, so that no two pairs share one.
func pairKey(champion, contender duel.Side) string {
	k := make([]byte, 0, 2*(32+1)+len(champion.ModelHash)+len(contender.ModelHash))
	for _, s := range []duel.Side{champion, contender} {
		k = append(append(append(k, s.Hotkey[:]...), byte(len(s.ModelHash))), s.ModelHash...)
	}
	return string(k)
}
