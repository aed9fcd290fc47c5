package duel

import (
	"errors"
	"fmt"
)

// Limits of a Rule. They keep Bounds inside 128-bit arithmetic and a duel
// record well below a block's decision size limit.
const (
	MaxZMilli        = 10_000
	MaxLooks         = 1024
	MaxLookSize      = 1 << 16
	MaxChallengesCap = 1 << 16
)

// ErrBadRule is wrapped by every Rule validation error.
var ErrBadRule = errors.New("bad duel rule")

// Rule is the per-env sequential test (spec/duel.md, "The sequential
// rule"). It is part of every duel record, so a record says how it was
// decided.
type Rule struct {
	// ZMilli is z in thousandths: the Wilson interval's half-width in
	// standard errors, the same at every look.
	ZMilli uint32 `cbor:"z_milli" json:"z_milli"`
	// Looks are the numbers of decisive outcomes (wins + losses) at which
	// the interval is computed, strictly increasing. The last is the cap:
	// an env still undecided there stays with the champion.
	Looks []uint32 `cbor:"looks" json:"looks"`
	// MaxChallenges bounds the challenges of one env, draws included: an
	// env that reaches it undecided stays with the champion. Draws do not
	// advance the looks, so without it a pair of models that draw almost
	// always would be sampled forever.
	MaxChallenges uint32 `cbor:"max_challenges" json:"max_challenges"`
}

// DefaultRule is the tuned rule of spec/duel.md: a Wilson 95% interval
// (z = 1.96) looked at after 32·2^(k/3) decisive outcomes, rounded to the
// preferred numbers 32, 40, 50, 64, ..., 400, and at most 2000 challenges
// per env.
func DefaultRule() Rule {
	return Rule{
		ZMilli:        1960,
		Looks:         []uint32{32, 40, 50, 64, 80, 100, 128, 160, 200, 256, 320, 400},
		MaxChallenges: 2000,
	}
}

// EverySampleRule looks after every decisive outcome up to lookCap: the
// naive rule whose false-dethrone rate the schedule of DefaultRule exists
// to avoid. It is here for the simulation's comparison only.
func EverySampleRule(zMilli, lookCap, maxChallenges uint32) Rule {
	looks := make([]uint32, lookCap)
	for i := range looks {
		looks[i] = uint32(i) + 1
	}
	return Rule{ZMilli: zMilli, Looks: looks, MaxChallenges: maxChallenges}
}

// Cap returns the last look: the most decisive outcomes an env can need.
func (r Rule) Cap() uint32 { return r.Looks[len(r.Looks)-1] }

// Validate checks the limits above.
func (r Rule) Validate() error {
	if r.ZMilli == 0 || r.ZMilli > MaxZMilli {
		return fmt.Errorf("%w: z_milli %d outside [1, %d]", ErrBadRule, r.ZMilli, MaxZMilli)
	}
	if len(r.Looks) == 0 || len(r.Looks) > MaxLooks {
		return fmt.Errorf("%w: %d looks, want 1 to %d", ErrBadRule, len(r.Looks), MaxLooks)
	}
	prev := uint32(0)
	for i, n := range r.Looks {
		if n <= prev {
			return fmt.Errorf("%w: look %d at %d decisive outcomes does not follow %d", ErrBadRule, i, n, prev)
		}
		prev = n
	}
	if prev > MaxLookSize {
		return fmt.Errorf("%w: last look at %d decisive outcomes exceeds %d", ErrBadRule, prev, MaxLookSize)
	}
	if r.MaxChallenges < prev || r.MaxChallenges > MaxChallengesCap {
		return fmt.Errorf("%w: max_challenges %d outside [%d (the last look), %d]", ErrBadRule, r.MaxChallenges, prev, MaxChallengesCap)
	}
	return nil
}

// clone returns r with its own Looks, so a caller's later edits cannot
// change a running test.
func (r Rule) clone() Rule {
	r.Looks = append([]uint32(nil), r.Looks...)
	return r
}
