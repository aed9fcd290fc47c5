package verify

import (
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ResultDuelID is the duel ID of r's duel, which its transcripts record
// (spec/ledger.md, "Duels").
func ResultDuelID(r duel.Result) record.DuelID {
	return record.Duel{Champion: r.Champion.Hotkey, Contender: r.Contender.Hotkey, Start: record.Anchor{Number: r.Start.Number, Hash: record.Hash(r.Start.Hash)}}.ID()
}

// duelResult checks decision raw of the current chain's block, of type typ
// and version, when it is a duel result of a version this release knows (spec/verify.md, D2): it
// recomputes, and duel.CheckBacking holds it to the chain's own
// transcripts in the result's duel, linked by the block or one before it
// (the challenge set holds what the audit read of the chain so far). A
// letter whose two transcripts the audited part of the chain does not
// hold (below --from, never recorded, or recorded for another duel) is
// counted, not failed: it proves nothing false. Other decisions are
// opaque (D1 checked their bytes).
func (vf *Verifier) duelResult(raw []byte, typ string, version uint64) error {
	if typ != duel.ResultType || version != duel.ResultVersion {
		return nil
	}
	r, err := duel.Decode(raw)
	if err != nil {
		return fmt.Errorf("duel result: %w", err)
	}
	vf.rep.DuelResults++
	v := vf.ch.v
	d := ResultDuelID(r)
	lookup := func(id challenge.ID) (duel.Pair, error) {
		champ, okChamp, err := vf.opts.Challenges.Get(v, r.Champion.Hotkey, id)
		if err != nil {
			return duel.Pair{}, err
		}
		cont, okCont, err := vf.opts.Challenges.Get(v, r.Contender.Hotkey, id)
		if err != nil {
			return duel.Pair{}, err
		}
		// A transcript of another duel is not this duel's evidence.
		ok := okChamp && okCont && champ.Duel == d && cont.Duel == d
		return duel.Pair{Champion: champ.Reward, Contender: cont.Reward, OK: ok}, nil
	}
	b, err := duel.CheckBacking(v, r, lookup)
	vf.rep.OutcomesChecked += b.Checked
	vf.rep.OutcomesUnbacked += b.Unbacked
	var be *duel.BackingError
	switch {
	case errors.As(err, &be):
		return fmt.Errorf("duel result: %w", err)
	case err != nil:
		return fmt.Errorf("challenge set: %w", err)
	}
	return nil
}
