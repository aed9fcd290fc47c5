package epoch

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/vtrust"
)

// Compute is epoch k's vTrust, winner and weights as auditor a sees them:
// a catches up on the peer blocks of its store, then vtrust.Epoch runs
// over the chain's validators and miners, the window's votes and
// reproduced outcomes and the standing votes of the epochs before it,
// from champion (the previous epoch's winner).
// Validators the store holds a fork proof of, forked before the window's
// end, are left out (Equivocators).
func Compute(ctx context.Context, c chain.Chain, a *Auditor, k uint64, champion duel.Side) (vtrust.Output, Window, error) {
	e, err := compute(ctx, c, a, k, champion, nil)
	return e.out, e.window, err
}

// participants is what an epoch reads of the chain at its boundary.
type participants struct {
	vals   []vtrust.Validator
	miners []vtrust.Miner
}

// computed is one epoch's computation and what it read.
type computed struct {
	out    vtrust.Output
	window Window
	at     participants
	// equivocators are the validators left out, in byte order.
	equivocators []keys.PublicKey
	// crowning is the vote that crowned the winner, if one counted
	// (crowningVote).
	crowning *vtrust.Vote
}

// compute is Compute; with known set it takes the participants from
// there instead of reading the chain's state at the boundary (which a
// pruned chain node may no longer hold).
func compute(ctx context.Context, c chain.Chain, a *Auditor, k uint64, champion duel.Side, known *participants) (computed, error) {
	p, err := c.Params(ctx)
	if err != nil {
		return computed{}, fmt.Errorf("read chain params: %w", err)
	}
	if err := CheckEpoch(k, p.Schedule()); err != nil {
		return computed{}, err
	}
	e := computed{window: WindowOf(k, p.Schedule())}
	if _, err := a.CatchUp(); err != nil {
		return e, err
	}
	if known != nil {
		e.at = *known
	} else {
		st, err := c.At(ctx, e.window.To)
		if err != nil {
			return e, fmt.Errorf("read the chain at block %d, where epoch %d begins: %w", e.window.To, k, err)
		}
		if e.at.vals, e.at.miners, err = Participants(ctx, st); err != nil {
			return e, err
		}
	}
	forked, err := Equivocators(a.store, e.window.To)
	if err != nil {
		return e, err
	}
	e.equivocators = sortedKeys(forked)
	var vals []vtrust.Validator
	for _, v := range e.at.vals {
		if !forked[v.Hotkey] {
			vals = append(vals, v)
		}
	}
	read, err := a.Ledger(e.window, StandingWindow(k, p.Schedule()), forked)
	if err != nil {
		return e, err
	}
	e.out, err = vtrust.Epoch(vtrust.Input{Validators: vals, Miners: e.at.miners, Champion: champion,
		Outcomes: read.Outcomes, Votes: read.Votes, Standing: read.Standing})
	if err == nil {
		e.crowning = crowningVote(e.out, read.Votes, read.Standing)
	}
	return e, err
}
