package duel

import (
	"fmt"
	"math"
)

// EnvLaw is the exact distribution of one env's test when every challenge
// is decisive and the contender wins each with the same probability: the
// probability that the test decides for the contender (Take) or the
// champion (Keep) at each look. The two sum to 1 over all looks.
type EnvLaw struct {
	Looks []uint32
	Take  []float64
	Keep  []float64
}

// TakeProbability returns the probability that the env goes to the
// contender.
func (l EnvLaw) TakeProbability() float64 {
	s := 0.0
	for _, v := range l.Take {
		s += v
	}
	return s
}

// ExactEnv computes the EnvLaw of rule against ratioPPM for a true win
// rate p, by dynamic programming over the binomial distribution of wins
// among the paths not yet stopped: between looks every surviving count
// gains a win with probability p or a loss with 1-p; at a look the counts
// the rule decides leave the pool. It uses the same integer decisions as
// EnvState, so it is the rule's exact law, not an approximation of it. It
// ignores Rule.MaxChallenges, which needs draws to matter.
func ExactEnv(rule Rule, ratioPPM uint32, p float64) (EnvLaw, error) {
	if err := rule.Validate(); err != nil {
		return EnvLaw{}, err
	}
	if ratioPPM == 0 || ratioPPM >= PPM {
		return EnvLaw{}, fmt.Errorf("%w: got %d", ErrBadRatio, ratioPPM)
	}
	if !(p >= 0 && p <= 1) {
		return EnvLaw{}, fmt.Errorf("win probability %v outside [0, 1]", p)
	}
	law := EnvLaw{Looks: rule.Looks, Take: make([]float64, len(rule.Looks)), Keep: make([]float64, len(rule.Looks))}
	dist := make([]float64, rule.Cap()+1)
	dist[0] = 1
	n := uint32(0)
	for k, look := range rule.Looks {
		for ; n < look; n++ {
			// dist[w] over w <= n becomes the distribution after one
			// more outcome; walking down keeps dist[w-1] unread.
			for w := n + 1; w > 0; w-- {
				// Each product is rounded before the sum (the conversions):
				// Go may fuse a*b + c into one multiply-add, rounding once,
				// and does on arm64, not on amd64. Unfused, the laws and
				// `ledger duel simulate`'s figures from them are the same
				// bits on every machine (spec "Floating-point operators").
				dist[w] = float64(dist[w]*(1-p)) + float64(dist[w-1]*p)
			}
			dist[0] *= 1 - p
		}
		last := k == len(rule.Looks)-1
		for w := uint32(0); w <= n; w++ {
			switch {
			case dist[w] == 0:
			case LowerExceeds(w, n, rule.ZMilli, ratioPPM):
				law.Take[k] += dist[w]
				dist[w] = 0
			case last || UpperBelow(w, n, rule.ZMilli, ratioPPM):
				law.Keep[k] += dist[w]
				dist[w] = 0
			}
		}
	}
	return law, nil
}

// DuelLaw is the exact dethrone probability and mean number of challenges
// of a duel whose envs follow the given laws independently, when every
// open env receives one challenge per round and the duel is checked after
// each round (as Simulate plays it without draws).
type DuelLaw struct {
	Dethrone float64
	Mean     float64
}

// maxExactTerms bounds ExactDuel's enumeration.
const maxExactTerms = 1 << 22

// ExactDuel combines per-env laws by enumerating every combination of
// (decision, look) over the envs: (2·looks)^envs terms, so it is meant for
// a handful of envs. All laws must share the same looks.
func ExactDuel(laws []EnvLaw) (DuelLaw, error) {
	if len(laws) == 0 || len(laws) > 4 {
		return DuelLaw{}, fmt.Errorf("exact duel over %d envs: want 1 to 4", len(laws))
	}
	events := make([][]envEvent, len(laws))
	for i, l := range laws {
		if len(l.Looks) != len(laws[0].Looks) {
			return DuelLaw{}, fmt.Errorf("env laws have different looks")
		}
		for k, at := range l.Looks {
			if l.Take[k] > 0 {
				events[i] = append(events[i], envEvent{true, at, l.Take[k]})
			}
			if l.Keep[k] > 0 {
				events[i] = append(events[i], envEvent{false, at, l.Keep[k]})
			}
		}
	}
	terms := 1
	for _, e := range events {
		if terms *= len(e); terms > maxExactTerms {
			return DuelLaw{}, fmt.Errorf("exact duel: more than %d combinations of env decisions", maxExactTerms)
		}
	}
	var out DuelLaw
	pick := make([]envEvent, len(laws))
	var walk func(i int, prob float64)
	walk = func(i int, prob float64) {
		if i < len(laws) {
			for _, e := range events[i] {
				pick[i] = e
				walk(i+1, prob*e.prob)
			}
			return
		}
		end, takes := endOf(pick)
		total := 0.0
		for _, e := range pick {
			total += float64(min(e.at, end))
		}
		if 2*takes > len(pick) {
			out.Dethrone += prob
		}
		out.Mean += float64(prob * total) // unfused, as in ExactEnv
	}
	walk(0, 1)
	return out, nil
}

// envEvent is one env's decision: for whom, at which round, how likely.
type envEvent struct {
	take bool
	at   uint32
	prob float64
}

// endOf returns the round at which a duel with these per-env decisions is
// decided, and the number of envs taken: the first decision round at which
// the contender holds a majority or can no longer reach one.
func endOf(picks []envEvent) (uint32, int) {
	n := len(picks)
	takes := 0
	for _, p := range picks {
		if p.take {
			takes++
		}
	}
	end := uint32(math.MaxUint32)
	for _, p := range picks {
		won, open := 0, 0
		for _, q := range picks {
			switch {
			case q.at > p.at:
				open++
			case q.take:
				won++
			}
		}
		if (2*won > n || 2*(won+open) <= n) && p.at < end {
			end = p.at
		}
	}
	return end, takes
}
