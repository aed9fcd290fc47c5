package validator

import (
	"context"
	"fmt"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Why a reign of the consensus champion starts from an adoption record: its
// first duel would otherwise run at the floor, below the ratio to which the
// validators that crowned the champion hold it, and this validator would
// be the lenient one, outvoted on every close contender, until the excess
// decayed (a day per halving). The record names the duel result that
// crowned the champion, so that the ratio still follows from the ledger,
// and from the source for an auditor who holds it (spec/validator.md,
// "Following consensus").

// crowned is a duel result in which a champion was crowned, and where it
// is.
type crowned struct {
	from   keys.PublicKey
	source cid.Cid
	result duel.Result
}

// crowning returns the duel result that crowned champion, the consensus
// champion, as the consensus names it (ConsensusView.Crowning), read from
// s. ok is false when the consensus names none: the reign then starts at
// the floor.
func crowning(s *ledger.Store, c ConsensusView, champion duel.Side) (crowned, bool, error) {
	from, rec, ok := c.Crowning(champion)
	if !ok {
		return crowned{}, false, nil
	}
	d, err := readDecision(s, rec)
	switch {
	case err != nil:
		return crowned{}, false, fmt.Errorf("the duel result %s that crowned %s: %w", rec, champion.Hotkey.Short(), err)
	case d.result == nil || d.result.Winner != duel.Contender.String() || !d.result.Contender.Equal(champion):
		return crowned{}, false, fmt.Errorf("record %s, named as the duel that crowned %s, is not a win of it", rec, champion.Hotkey.Short())
	}
	return crowned{from: from, source: rec, result: *d.result}, true, nil
}

// adopt records the adoption of the frontier that src left, in a
// block anchored at start, and folds it into the history. It returns the
// frontier, or ok false when the source started after start (a peer's
// anchor ahead of this validator's chain reads): the reign then starts at
// the floor, as without a source.
func (v *Validator) adopt(ctx context.Context, start record.Anchor, src crowned) (duel.Frontier, bool, error) {
	a, err := duel.NewAdopt(v.cfg.Frontier, src.from, src.source, src.result)
	if err != nil {
		return duel.Frontier{}, false, err
	}
	if a.SetAt > start.Number {
		return duel.Frontier{}, false, nil
	}
	f, err := v.cfg.Frontier.Adopted(a)
	if err != nil {
		return duel.Frontier{}, false, err
	}
	raw, _, err := duel.EncodeAdopt(a)
	if err != nil {
		return duel.Frontier{}, false, err
	}
	began := time.Now()
	rc, err := v.app.Append(ctx, start, nil, [][]byte{raw})
	v.cfg.Metrics.Appended(0, time.Since(began), err)
	if err != nil {
		return duel.Frontier{}, false, fmt.Errorf("record the adoption of %s: %w", a.Champion.Hotkey.Short(), err)
	}
	v.notify(rc)
	index := decisionIndex(v.cfg.Store, rc)
	v.stateMu.Lock()
	err = v.hist.addAdopt(rc.Block, rc.Decisions[0], index, a)
	v.stateMu.Unlock()
	if err != nil {
		return duel.Frontier{}, false, err
	}
	v.cfg.Logger.Info("validator: adopted the consensus champion's ratio to beat",
		"champion", a.Champion.Hotkey.String(), "set_ppm", a.SetPPM, "set_at", a.SetAt,
		"source", a.Source.Cid.String(), "from", a.From.String())
	return f, true, nil
}

// decisionIndex is the position of the receipt's first decision in its
// block, which may hold other requests' decisions (an appender shared with
// a node).
func decisionIndex(s *ledger.Store, rc ledger.Receipt) int {
	b, err := s.Block(rc.Block.CID)
	if err != nil {
		return 0
	}
	for i, c := range b.DecisionCIDs() {
		if c.Equals(rc.Decisions[0]) {
			return i
		}
	}
	return 0
}
