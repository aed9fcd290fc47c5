package epoch

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/vtrust"
)

// Compute is epoch k's vTrust, winner and weights as auditor a sees them:
// a catches up on the peer blocks of its store, then vtrust.Epoch runs
// over the chain's validators and miners and the window's votes and
// reproduced outcomes, from champion (the previous epoch's winner).
func Compute(ctx context.Context, c chain.Chain, a *Auditor, k uint64, champion duel.Side) (vtrust.Output, Window, error) {
	if k == 0 {
		return vtrust.Output{}, Window{}, fmt.Errorf("epoch 0 reads nothing: epochs start at 1")
	}
	p, err := c.Params(ctx)
	if err != nil {
		return vtrust.Output{}, Window{}, fmt.Errorf("read chain params: %w", err)
	}
	w := WindowOf(k, p.Tempo)
	if _, err := a.CatchUp(); err != nil {
		return vtrust.Output{}, w, err
	}
	st, err := c.At(ctx, w.To)
	if err != nil {
		return vtrust.Output{}, w, fmt.Errorf("read the chain at block %d, where epoch %d begins: %w", w.To, k, err)
	}
	vals, miners, err := Participants(ctx, st)
	if err != nil {
		return vtrust.Output{}, w, err
	}
	votes, outcomes, err := Ledger(a.store, a.self, w, a.Outcomes())
	if err != nil {
		return vtrust.Output{}, w, err
	}
	out, err := vtrust.Epoch(vtrust.Input{Validators: vals, Miners: miners, Champion: champion, Outcomes: outcomes, Votes: votes})
	return out, w, err
}
