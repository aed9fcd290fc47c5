package epoch

import (
	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/vtrust"
)

// consensusView is an epoch as the validator's duel loop reads it
// (validator.ConsensusView): its winner, and what it made of each pair.
type consensusView struct {
	epoch    uint64
	schedule chain.Schedule
	out      vtrust.Output
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
		if sameSide(p.Champion, champion) && sameSide(p.Contender, contender) {
			return p.Against.Double().Cmp(c.out.Total) < 0
		}
	}
	return true
}
