package validator

import "github.com/affine-ledger/ledger/inference"

// unansweredLimit is how many challenges in a row a side of a duel may
// leave without any answer (every call timed out, headers or not, or
// failed below HTTP) before the duel stops asking it: its later
// challenges are recorded as lost without a call (inference.Unasked),
// until the duel ends. A miner that hangs would otherwise hold the
// validator's queue for as long as its calls take to time out: with
// spec/inference.md's defaults, 30 minutes a challenge, 4 at a time,
// hours per duel. Two rounds of the per-miner limit: a miner down for
// about an hour loses the duel.
const unansweredLimit = 8

// noteAnswer counts rec toward the side's challenges in a row without
// any answer (a call timed out, whether headers came or not, or failed
// below HTTP), or starts the count again when the miner answered, if
// only with an HTTP error.
func (s *sideRun) noteAnswer(rec inference.EpisodeRecord) {
	for _, c := range rec.Calls {
		if c.ErrorKind != inference.KindTimeout && c.ErrorKind != inference.KindTransport {
			s.unanswered.Store(0)
			return
		}
	}
	if len(rec.Calls) > 0 {
		s.unanswered.Add(1)
	}
}
