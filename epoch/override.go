package epoch

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
)

// The champion override (spec/vtrust.md) starts an epoch from the winner
// a majority of stake's weight rows name, so that a validator whose store
// missed a vote comes back to the others. The rows in effect at epoch k's
// first block were written for an earlier epoch: set during epoch k-1
// without commit-reveal, but under commit-reveal revealed during k-1 and
// so committed, and computed, RevealPeriod epochs before. Taken for
// epoch k-1's winner, they would undo every dethrone of the last
// RevealPeriod epochs, one epoch after the next. So the rows are taken
// for the winner of epoch k-1-lag, and when that is not the winner the
// driver computed for that epoch, it computes the lag epochs since again
// from it.

// lag is how many epochs the weight rows in effect at an epoch's first
// block trail the epoch before it.
func lag(p chain.Params) uint64 {
	if p.CommitReveal {
		return p.RevealPeriod
	}
	return 0
}

// override returns the champion epoch k starts from when the rows in
// effect at its first block give m a majority: m itself without a lag,
// else what the epochs after the one the rows were written for give when
// computed again from m. own is the driver's champion after epoch k-1,
// the answer when the rows agree with what the driver computed.
func (d *Driver) override(ctx context.Context, p chain.Params, k uint64, m, own duel.Side) (duel.Side, error) {
	// from is the first epoch after the one the rows were written for;
	// near the chain's start that one may precede epoch 1.
	from := max(1, k-min(k, lag(p)))
	d.mu.Lock()
	computed, known := d.winners[from-1]
	d.mu.Unlock()
	if known && computed.Equal(m) {
		return own, nil
	}
	replayed := make(map[uint64]duel.Side, k-from)
	c := m
	for e := from; e < k; e++ {
		d.mu.Lock()
		at, ok := d.read[e]
		d.mu.Unlock()
		var known *participants
		if ok {
			known = &at
		}
		r, err := compute(ctx, d.cfg.Chain, d.auditor, e, c, known)
		if err != nil {
			return own, fmt.Errorf("compute epoch %d again from the majority's winner of epoch %d: %w", e, from-1, err)
		}
		c = r.out.Champion
		replayed[e] = c
	}
	d.mu.Lock()
	d.winners[from-1] = m
	for e, w := range replayed {
		d.winners[e] = w
	}
	d.mu.Unlock()
	return c, nil
}

// remember keeps what epoch k read and its winner for the override of
// the next epochs, and forgets what no later override reads.
func (d *Driver) remember(p chain.Params, k uint64, at participants, winner duel.Side) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.winners[k], d.read[k] = winner, at
	oldest := k - min(k, lag(p))
	for e := range d.winners {
		if e < oldest {
			delete(d.winners, e)
		}
	}
	for e := range d.read {
		if e < oldest {
			delete(d.read, e)
		}
	}
}

// pruneBefore is the anchor before which the auditor's outcomes can go
// once epoch k is computed: the next override may compute the lag epochs
// up to k again.
func pruneBefore(p chain.Params, k uint64) uint64 {
	return Boundary(k-min(k, lag(p)), p.Schedule())
}
