package verify

import (
	"fmt"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
)

// duelResult checks decision raw of the current chain's block when it is
// a duel result of a version this release knows (spec/verify.md, D2): it
// recomputes, and every outcome letter is what the rewards of the chain's
// own transcripts of that challenge give, the champion's and the
// contender's in the result's duel, linked by the block or one before it
// (the challenge set holds what the audit read of the chain so far). A
// letter whose two transcripts the audited part of the chain does not
// hold (below --from, never recorded, or recorded for another duel) is
// counted, not failed: it proves nothing false.
// Other decisions are opaque (D1 checked their bytes).
func (vf *Verifier) duelResult(raw []byte) error {
	typ, version, err := record.DecisionType(raw)
	if err != nil || typ != duel.ResultType || version != duel.ResultVersion {
		return nil
	}
	r, err := duel.Decode(raw)
	if err != nil {
		return fmt.Errorf("duel result: %w", err)
	}
	vf.rep.DuelResults++
	v := vf.ch.v
	d := duelPrefix(record.Duel{Champion: r.Champion.Hotkey, Contender: r.Contender.Hotkey, Start: record.Anchor{Number: r.Start.Number, Hash: record.Hash(r.Start.Hash)}}.ID())
	for _, e := range r.Envs {
		for i, id := range e.Challenges {
			champ, okChamp, err := vf.opts.Challenges.Get(v, r.Champion.Hotkey, id)
			if err != nil {
				return fmt.Errorf("challenge set: %w", err)
			}
			cont, okCont, err := vf.opts.Challenges.Get(v, r.Contender.Hotkey, id)
			if err != nil {
				return fmt.Errorf("challenge set: %w", err)
			}
			// A transcript of another duel is not this duel's evidence.
			if !okChamp || !okCont || champ.Duel != d || cont.Duel != d {
				vf.rep.OutcomesUnbacked++
				continue
			}
			letter := duel.Outcome(e.Outcomes[i])
			if want := duel.Judge(champ.Reward, cont.Reward); want != letter {
				return fmt.Errorf("duel result: env %s, challenge %d (%s): outcome %c, but the chain's transcripts give %c (reward %d for the champion, height %d transcript %d; %d for the contender, height %d transcript %d)",
					e.Env, i, id, letter, want, champ.Reward, champ.Height, champ.Index, cont.Reward, cont.Height, cont.Index)
			}
			vf.rep.OutcomesChecked++
		}
	}
	return nil
}
