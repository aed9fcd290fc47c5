package epoch

import (
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/vtrust"
)

// Audit re-executes every transcript of peer block b with the checks of
// `ledger verify` (bytes against the link, well-formedness, the block's
// validator, re-execution: spec/verify.md T1-T3 and T6) and checks every
// duel result b links against the validator's transcripts
// (judgeDecision). It returns one outcome per transcript, in the block's
// order, then one per duel result:
//
//   - agree: every check reproduced the record;
//   - fault: the transcript is well-formed and signed into b, but a
//     deterministic result (reward, turn reward, reason, prompt,
//     observation) does not reproduce, or it names another validator; a
//     duel result does not recompute, or the validator's log contradicts
//     it (duel.CheckBacking: a letter its transcripts' rewards do not
//     give, a challenge its duel does not draw, a pair left out);
//   - disagree: the transcript is missing from the store or its bytes do
//     not decode; a duel result's challenge has no transcript of a side
//     in its duel in the validator's log up to b. Neither proves anything
//     against b's validator.
//
// An auditor never judges itself: Audit of one's own block is an error.
func Audit(auditor keys.PublicKey, s *ledger.Store, b ledger.StoredBlock) ([]vtrust.Outcome, error) {
	if b.Validator == auditor {
		return nil, fmt.Errorf("audit block %d of %s: an auditor does not judge its own blocks", b.Height, auditor)
	}
	out := make([]vtrust.Outcome, 0, len(b.Transcripts))
	for i, l := range b.Transcripts {
		verdict, reason := judge(s, b, l.Cid)
		o, err := vtrust.NewOutcome(auditor, b.Validator, b.CID, l.Cid, verdict, reason)
		if err != nil {
			return nil, fmt.Errorf("audit block %d of %s, transcript %d: %w", b.Height, b.Validator, i, err)
		}
		out = append(out, o)
	}
	for i, l := range b.Decisions {
		verdict, reason, judged := judgeDecision(s, b, l.Cid)
		if !judged {
			continue
		}
		o, err := vtrust.NewOutcome(auditor, b.Validator, b.CID, l.Cid, verdict, reason)
		if err != nil {
			return nil, fmt.Errorf("audit block %d of %s, decision %d: %w", b.Height, b.Validator, i, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// judge returns the verdict on one transcript of b and, unless it is
// agree, why.
func judge(s *ledger.Store, b ledger.StoredBlock, c cid.Cid) (vtrust.Verdict, string) {
	raw, err := s.Object(c)
	if err != nil {
		if errors.Is(err, ledger.ErrNotFound) {
			return vtrust.Disagree, "transcript is not in the auditor's store"
		}
		return vtrust.Disagree, reason("read transcript", err)
	}
	if err := codec.CheckCID(raw, c); err != nil {
		return vtrust.Disagree, reason("bytes do not match the link", err)
	}
	t, err := record.DecodeTranscript(raw)
	if err != nil {
		return vtrust.Disagree, reason("decode transcript", err)
	}
	if t.Validator != b.Validator {
		return vtrust.Fault, fmt.Sprintf("transcript names validator %s, the block's is %s", t.Validator, b.Validator)
	}
	if err := verify.Reexecute(t); err != nil {
		return vtrust.Fault, reason("re-execute "+t.Challenge.String(), err)
	}
	return vtrust.Agree, ""
}

// reason bounds an error's text to what an outcome may carry.
func reason(what string, err error) string {
	r := what + ": " + err.Error()
	return textcut.Prefix(r, vtrust.MaxReasonBytes)
}
