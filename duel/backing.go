package duel

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
)

// CounterSlack is how far past a rule's max_challenges a duel's counters
// may run: the challenges drawn but never counted (out when the duel
// decided, or when the validator stopped) use counters too.
const CounterSlack = 128

// Pair is what a validator's log holds of one challenge of a duel: the
// rewards of the champion's and the contender's transcripts of it, in
// that duel, both present (ok) or not.
type Pair struct {
	Champion, Contender int64
	OK                  bool
}

// PairLookup finds the pair of challenge id in the log being audited.
type PairLookup func(id challenge.ID) (Pair, error)

// Backing counts a result's outcome letters that the log backs (both
// transcripts present, the letter following from their rewards) and those
// it cannot judge (a transcript missing: nothing proved false).
type Backing struct {
	Checked, Unbacked int
}

// BackingError is what makes a result false against the log of the
// validator that recorded it: the result is a fault.
type BackingError struct {
	Env       string
	Index     int // in the env's challenges
	Challenge challenge.ID
	Reason    string
}

func (e *BackingError) Error() string {
	return fmt.Sprintf("env %s, challenge %d (%s): %s", e.Env, e.Index, e.Challenge, e.Reason)
}

// CheckBacking holds result r, recorded by validator v, to v's log
// (spec/validator.md, "Decision records"): in each env, the challenges
// listed are those v draws from the duel's start by increasing counters;
// a counter passed over has no pair in the log (a pair recorded but left
// out of the result would let a validator choose its outcomes); and each
// letter is what its pair's rewards give (Judge). A listed challenge
// whose pair the log lacks is counted in Unbacked. The first contradiction
// is returned as a *BackingError; lookup's errors are returned as they
// are.
func CheckBacking(v keys.PublicKey, r Result, lookup PairLookup) (Backing, error) {
	var b Backing
	limit := uint64(r.Rule.MaxChallenges) + CounterSlack
	for _, e := range r.Envs {
		next := uint64(0) // the first counter not yet matched
		for i, id := range e.Challenges {
			fail := func(format string, args ...any) error {
				return &BackingError{Env: e.Env, Index: i, Challenge: id, Reason: fmt.Sprintf(format, args...)}
			}
			c, ok := counterOf(v, r.Start.Hash, id, next, limit)
			if !ok {
				return b, fail("no counter from %d to %d draws it from the duel's start %d", next, limit, r.Start.Number)
			}
			for skipped := next; skipped < c; skipped++ {
				sid, err := challenge.Derive(r.Start.Hash, v, id.Env, id.Version, skipped)
				if err != nil {
					return b, fail("%v", err)
				}
				p, err := lookup(sid)
				if err != nil {
					return b, err
				}
				if p.OK {
					return b, fail("counter %d, passed over before it, has both transcripts in the log (%s), but the result leaves it out", skipped, sid)
				}
			}
			next = c + 1
			p, err := lookup(id)
			if err != nil {
				return b, err
			}
			if !p.OK {
				b.Unbacked++
				continue
			}
			letter := Outcome(e.Outcomes[i])
			if want := Judge(p.Champion, p.Contender); want != letter {
				return b, fail("outcome %c recorded, but the transcripts give %c (reward %d for the champion, %d for the contender)", letter, want, p.Champion, p.Contender)
			}
			b.Checked++
		}
	}
	return b, nil
}

// counterOf finds the counter in [from, limit] by which v draws id from
// the anchor hash start.
func counterOf(v keys.PublicKey, start Hash, id challenge.ID, from, limit uint64) (uint64, bool) {
	for c := from; c <= limit; c++ {
		if challenge.DeriveSeed(start, v, id.Env, id.Version, c) == id.Seed {
			return c, true
		}
	}
	return 0, false
}
