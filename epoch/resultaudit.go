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
	"github.com/affine-ledger/ledger/verify"
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

// judgeResult holds r to the transcripts b's validator linked, in b or
// before, in r's duel (duel.CheckBacking): a result its log contradicts
// (a letter the rewards do not give, a challenge its duel could not draw,
// a pair recorded but left out) is a fault; a listed challenge whose
// transcript of either side is not in the log up to b, or is another
// duel's, is a disagreement, proving nothing false. Only the log up to b
// counts, so that every auditor judges alike whenever it audits.
func judgeResult(s *ledger.Store, b ledger.StoredBlock, r duel.Result) (vtrust.Verdict, string) {
	d := verify.ResultDuelID(r)
	pair := func(id challenge.ID) (duel.Pair, error) {
		champ, err := rewardOf(s, b, d, id, r.Champion.Hotkey)
		if err != nil {
			return duel.Pair{}, fmt.Errorf("the champion's transcript: %w", err)
		}
		cont, err := rewardOf(s, b, d, id, r.Contender.Hotkey)
		if err != nil {
			return duel.Pair{}, fmt.Errorf("the contender's transcript: %w", err)
		}
		return duel.Pair{Champion: champ, Contender: cont, OK: true}, nil
	}
	// A pair the log does not hold, or cannot give, is absent: that
	// proves nothing against the validator.
	lookup := func(id challenge.ID) (duel.Pair, error) {
		p, _ := pair(id)
		return p, nil
	}
	backing, err := duel.CheckBacking(b.Validator, r, lookup)
	switch {
	case err != nil:
		return vtrust.Fault, textcut.Prefix("duel result: "+err.Error(), vtrust.MaxReasonBytes)
	case backing.Unbacked > 0:
		return vtrust.Disagree, textcut.Prefix(fmt.Sprintf("%d of the result's outcomes have no pair of transcripts of its duel in the log up to its block; first, %s", backing.Unbacked, firstUnbacked(r, pair)), vtrust.MaxReasonBytes)
	}
	return vtrust.Agree, ""
}

// firstUnbacked says why the first challenge of r whose pair is absent is.
func firstUnbacked(r duel.Result, pair func(challenge.ID) (duel.Pair, error)) string {
	for _, e := range r.Envs {
		for _, id := range e.Challenges {
			if _, err := pair(id); err != nil {
				return fmt.Sprintf("challenge %s: %v", id, err)
			}
		}
	}
	return "none"
}

// rewardOf is the reward of b's validator's transcript of challenge id
// put to miner in duel d, linked by b or a block before it.
func rewardOf(s *ledger.Store, b ledger.StoredBlock, d record.DuelID, id challenge.ID, miner keys.PublicKey) (int64, error) {
	ref, err := s.TranscriptOf(b.Validator, miner, id)
	if err != nil {
		return 0, err
	}
	if ref.Height > b.Height {
		return 0, fmt.Errorf("linked only by block %d, after the result's", ref.Height)
	}
	// The index gave its CID: read it as judge does, not through
	// Store.Transcript, which would look the index up again.
	raw, err := s.Object(ref.CID)
	if err != nil {
		return 0, err
	}
	if err := codec.CheckCID(raw, ref.CID); err != nil {
		return 0, err
	}
	t, err := record.DecodeTranscript(raw)
	if err != nil {
		return 0, err
	}
	if t.Duel != d {
		return 0, fmt.Errorf("of duel %s, the result's is %s", t.Duel, d)
	}
	return t.Reward, nil
}
