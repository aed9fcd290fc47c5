package epoch

import (
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// judgeDecision returns the verdict on decision c of b when it is a duel
// result (spec/vtrust.md, Verdicts); judged is false for every other
// record, and for a duel result of a version this release does not know:
// an outcome about a record is recorded only when the record was judged.
//
// A duel result's letters are what vTrust counts as the validator's vote,
// and each letter must follow from the rewards of the validator's own
// transcripts of that challenge, which re-execution checks in turn: so a
// vote rests on recorded replies all the way down. Without this check a
// validator could vote for any contender with results it never played.
func judgeDecision(s *ledger.Store, b ledger.StoredBlock, c cid.Cid) (verdict vtrust.Verdict, why string, judged bool) {
	raw, err := s.Object(c)
	if err != nil {
		// Put stores a block only with every object it links; this is
		// the store's trouble, not the validator's.
		return vtrust.Disagree, reason("read decision", err), true
	}
	if err := codec.CheckCID(raw, c); err != nil {
		return vtrust.Disagree, reason("bytes do not match the link", err), true
	}
	typ, version, err := record.DecisionType(raw)
	if err != nil || typ != duel.ResultType {
		return "", "", false
	}
	if version != duel.ResultVersion {
		return "", "", false
	}
	r, err := duel.Decode(raw)
	if err != nil {
		return vtrust.Fault, reason("duel result does not recompute", err), true
	}
	verdict, why = judgeResult(s, b, r)
	return verdict, why, true
}

// judgeResult checks every outcome letter of r against the rewards of the
// transcripts b's validator linked, in b or before, for the challenge and
// each side in r's duel: a letter the rewards contradict is a fault; a
// challenge whose transcript of either side is not in the log up to b,
// or is another duel's, is a disagreement, proving nothing false. A fault outranks a disagreement;
// the first of the most severe is the reason.
func judgeResult(s *ledger.Store, b ledger.StoredBlock, r duel.Result) (vtrust.Verdict, string) {
	verdict, why := vtrust.Agree, ""
	for _, e := range r.Envs {
		for i, id := range e.Challenges {
			letter := duel.Outcome(e.Outcomes[i])
			v, w := judgeLetter(s, b, r, id, letter)
			switch {
			case v == vtrust.Fault:
				return v, textcut.Prefix(fmt.Sprintf("env %s, challenge %d (%s): %s", e.Env, i, id, w), vtrust.MaxReasonBytes)
			case v == vtrust.Disagree && verdict == vtrust.Agree:
				verdict, why = v, fmt.Sprintf("env %s, challenge %d (%s): %s", e.Env, i, id, w)
			}
		}
	}
	return verdict, textcut.Prefix(why, vtrust.MaxReasonBytes)
}

// judgeLetter checks one outcome letter.
func judgeLetter(s *ledger.Store, b ledger.StoredBlock, r duel.Result, id challenge.ID, letter duel.Outcome) (vtrust.Verdict, string) {
	d := resultDuelID(r)
	champ, err := rewardOf(s, b, d, id, r.Champion.Hotkey)
	if err != nil {
		return vtrust.Disagree, "the champion's transcript: " + err.Error()
	}
	cont, err := rewardOf(s, b, d, id, r.Contender.Hotkey)
	if err != nil {
		return vtrust.Disagree, "the contender's transcript: " + err.Error()
	}
	if want := duel.Judge(champ, cont); want != letter {
		return vtrust.Fault, fmt.Sprintf("outcome %c recorded, but the validator's transcripts give %c (rewards %d for the champion, %d for the contender)", letter, want, champ, cont)
	}
	return vtrust.Agree, ""
}

// resultDuelID is the duel ID of r's duel, which its transcripts record.
func resultDuelID(r duel.Result) record.DuelID {
	return record.Duel{Champion: r.Champion.Hotkey, Contender: r.Contender.Hotkey, Start: record.Anchor{Number: r.Start.Number, Hash: record.Hash(r.Start.Hash)}}.ID()
}

// rewardOf is the reward of b's validator's transcript of challenge id
// put to miner in duel d, linked by b or a block before it. A later
// block's does not count, so that every auditor judges the result alike,
// whenever it audits; one of another duel is not this duel's.
func rewardOf(s *ledger.Store, b ledger.StoredBlock, d record.DuelID, id challenge.ID, miner keys.PublicKey) (int64, error) {
	ref, err := s.TranscriptOf(b.Validator, miner, id)
	if err != nil {
		return 0, err
	}
	if ref.Height > b.Height {
		return 0, fmt.Errorf("linked only by block %d, after the result's", ref.Height)
	}
	t, err := s.Transcript(ref.CID)
	if err != nil {
		return 0, err
	}
	if t.Duel != d {
		return 0, fmt.Errorf("of duel %s, the result's is %s", t.Duel, d)
	}
	return t.Reward, nil
}
