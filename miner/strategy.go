package miner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Strategy kinds.
const (
	Perfect = "perfect" // solves every env it knows
	Noisy   = "noisy"   // right with probability P, else a plausible wrong answer
	Random  = "random"  // random words and numbers, ignoring the question
	Slow    = "slow"    // perfect after a delay
	Flaky   = "flaky"   // HTTP 500 with probability P per attempt, else perfect
	Garbage = "garbage" // HTTP 200 with a body that is not a chat completion
	Hang    = "hang"    // never answers; holds the request until it is abandoned
)

// ppmScale is the denominator of probabilities: they are kept in parts per
// million so that draws are integer rng.Chance calls.
const ppmScale = 1_000_000

// Strategy is how a miner answers. Parse one with ParseStrategy.
type Strategy struct {
	Kind string
	// PPM is P in parts per million, for noisy and flaky.
	PPM uint64
	// Delay is the wait of slow.
	Delay time.Duration
}

// ParseStrategy reads "perfect", "noisy:P", "random", "slow:DURATION",
// "flaky:P", "garbage" or "hang". P is a decimal in [0, 1] (rounded to a
// millionth); DURATION is a Go duration such as 2s or 150ms.
func ParseStrategy(s string) (Strategy, error) {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch kind {
	case Perfect, Random, Garbage, Hang:
		if hasArg {
			return Strategy{}, fmt.Errorf("strategy %q: %s takes no argument", s, kind)
		}
		return Strategy{Kind: kind}, nil
	case Noisy, Flaky:
		if !hasArg {
			return Strategy{}, fmt.Errorf("strategy %q: want %s:P with P in [0,1]", s, kind)
		}
		p, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
			return Strategy{}, fmt.Errorf("strategy %q: P must be a number in [0,1]", s)
		}
		return Strategy{Kind: kind, PPM: uint64(math.Round(p * ppmScale))}, nil
	case Slow:
		d, err := time.ParseDuration(arg)
		if !hasArg || err != nil || d < 0 {
			return Strategy{}, fmt.Errorf("strategy %q: want slow:DURATION such as slow:2s", s)
		}
		return Strategy{Kind: kind, Delay: d}, nil
	}
	return Strategy{}, fmt.Errorf("unknown strategy %q: want perfect, noisy:P, random, slow:DURATION, flaky:P, garbage or hang", s)
}

// String returns the canonical text form, which ParseStrategy reads back.
func (s Strategy) String() string {
	switch s.Kind {
	case Noisy, Flaky:
		return s.Kind + ":" + strconv.FormatFloat(float64(s.PPM)/ppmScale, 'f', -1, 64)
	case Slow:
		return s.Kind + ":" + s.Delay.String()
	}
	return s.Kind
}
