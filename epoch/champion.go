package epoch

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
)

// ChainWinner reads the consensus winner back from the chain: among the
// weight rows of hotkeys with a validator permit, the uid that rows
// holding the most stake put first (winner takes all), as a duel side
// with the model it has committed. A driver that has no state of its own
// (a new machine, a new validator) starts its reign there rather than
// from the first champion. ok is false when no validator has weights, or
// the winner no longer has a miner commitment. Under commit-reveal the
// rows read are the last ones revealed.
func ChainWinner(ctx context.Context, c chain.Reader) (_ duel.Side, ok bool, _ error) {
	s, _, ok, err := chainWinner(ctx, c)
	return s, ok, err
}

// ChainMajority is ChainWinner when the rows that put the winner first
// hold more than half of all validator-permit stake, ok false otherwise.
// A driver's champion override reads it at every epoch's first block, so
// that validators that split on a champion (one computed an epoch before
// a vote reached it) come back together once a majority of stake has set
// weights. Under commit-reveal the rows read name the winner of an epoch
// RevealPeriod epochs older than without (override.go).
func ChainMajority(ctx context.Context, c chain.Reader) (_ duel.Side, ok bool, _ error) {
	s, majority, ok, err := chainWinner(ctx, c)
	return s, ok && majority, err
}

func chainWinner(ctx context.Context, c chain.Reader) (_ duel.Side, majority, ok bool, _ error) {
	m, err := c.Metagraph(ctx)
	if err != nil {
		return duel.Side{}, false, false, fmt.Errorf("read metagraph: %w", err)
	}
	rows, err := c.Weights(ctx)
	if err != nil {
		return duel.Side{}, false, false, fmt.Errorf("read weights: %w", err)
	}
	var permitted uint64
	for _, n := range m.Neurons {
		if n.ValidatorPermit {
			permitted += n.Stake
		}
	}
	stakeFor := map[uint16]uint64{}
	for _, r := range rows {
		if int(r.UID) >= len(m.Neurons) || !m.Neurons[r.UID].ValidatorPermit {
			continue
		}
		top, best := -1, uint16(0)
		for i, u := range r.UIDs {
			if r.Values[i] > best || r.Values[i] == best && top >= 0 && u < uint16(top) {
				top, best = int(u), r.Values[i]
			}
		}
		if top >= 0 {
			stakeFor[uint16(top)] += m.Neurons[r.UID].Stake
		}
	}
	winner, most, found := uint16(0), uint64(0), false
	for u, s := range stakeFor {
		if !found || s > most || s == most && u < winner {
			winner, most, found = u, s, true
		}
	}
	if !found {
		return duel.Side{}, false, false, nil
	}
	cs, err := c.Commitments(ctx)
	if err != nil {
		return duel.Side{}, false, false, fmt.Errorf("read commitments: %w", err)
	}
	for _, ct := range chain.Contenders(m, cs) {
		if ct.UID == winner {
			id := ct.Commitment.Identity()
			return duel.Side{Hotkey: ct.Hotkey, ModelHash: id[:]}, 2*most > permitted, true, nil
		}
	}
	return duel.Side{}, false, false, nil
}
