package duel

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/affine-ledger/ledger/rng"
)

// FixedRule is the rule Affine used: a fixed number of challenges per env,
// then one Wilson interval; the contender takes the env when its lower
// bound exceeds the ratio to beat.
type FixedRule struct {
	Challenges uint32 `json:"challenges"`
	ZMilli     uint32 `json:"z_milli"`
}

// SimConfig is a simulation run.
type SimConfig struct {
	Rule  Rule      `json:"rule"`
	Fixed FixedRule `json:"fixed"`
	// EverySample, if set, is also played: the naive rule that looks
	// after every decisive outcome.
	EverySample *Rule `json:"every_sample,omitempty"`
	Duels       int   `json:"duels"`
	// Seed seeds everything; each case and duel draws from its own
	// sub-stream, so results do not depend on Workers.
	Seed    [32]byte `json:"-"`
	Workers int      `json:"-"`
}

// RuleStats summarises one rule over the duels of a case. Challenges are
// counted over all envs together, draws included.
type RuleStats struct {
	Dethrones      int     `json:"dethrones"`
	DethroneRate   float64 `json:"dethrone_rate"`
	MeanChallenges float64 `json:"mean_challenges"`
	P95Challenges  uint32  `json:"p95_challenges"`
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case        Case       `json:"case"`
	Boundary    bool       `json:"boundary"`
	Sequential  RuleStats  `json:"sequential"`
	Fixed       RuleStats  `json:"fixed"`
	EverySample *RuleStats `json:"every_sample,omitempty"`
	// MeanRatio is the sequential rule's mean challenges over the fixed
	// rule's.
	MeanRatio float64 `json:"mean_ratio"`
	// Exact is the sequential rule's exact law (no draws, at most 4 envs).
	Exact *DuelLaw `json:"exact,omitempty"`
}

// simChunk is the number of duels one job plays.
const simChunk = 500

// Simulate plays cfg.Duels duels of every case under the sequential rule,
// the fixed rule and, if set, the every-sample rule. All rules see the
// same challenge outcomes (common random numbers), so their differences
// are not sampling noise between runs.
func Simulate(cfg SimConfig, cases []Case) ([]CaseResult, error) {
	if err := cfg.validate(cases); err != nil {
		return nil, err
	}
	type caseData struct {
		seq, fixed, every []uint32 // challenges per duel
		seqWon, fixWon    []bool
		everyWon          []bool
		seed              [32]byte
	}
	data := make([]caseData, len(cases))
	type job struct{ c, from, to int }
	var jobs []job
	for c := range cases {
		d := &data[c]
		d.seq, d.fixed = make([]uint32, cfg.Duels), make([]uint32, cfg.Duels)
		d.seqWon, d.fixWon = make([]bool, cfg.Duels), make([]bool, cfg.Duels)
		if cfg.EverySample != nil {
			d.every, d.everyWon = make([]uint32, cfg.Duels), make([]bool, cfg.Duels)
		}
		d.seed = rng.Derive(cfg.Seed, "duel-sim/"+cases[c].Label())
		for from := 0; from < cfg.Duels; from += simChunk {
			jobs = append(jobs, job{c, from, min(from+simChunk, cfg.Duels)})
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan job)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newPlayer(cfg)
			for j := range next {
				if errs[w] != nil {
					continue
				}
				d := &data[j.c]
				for i := j.from; i < j.to; i++ {
					r, err := p.play(cases[j.c], rng.Derive(d.seed, strconv.Itoa(i)))
					if err != nil {
						errs[w] = fmt.Errorf("%s duel %d: %w", cases[j.c].Label(), i, err)
						break
					}
					d.seq[i], d.seqWon[i] = r.seq, r.seqWon
					d.fixed[i], d.fixWon[i] = r.fixed, r.fixWon
					if d.every != nil {
						d.every[i], d.everyWon[i] = r.every, r.everyWon
					}
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]CaseResult, len(cases))
	for c, cs := range cases {
		d := data[c]
		r := CaseResult{
			Case:       cs,
			Boundary:   cs.Boundary(),
			Sequential: summarize(d.seq, d.seqWon),
			Fixed:      summarize(d.fixed, d.fixWon),
		}
		if d.every != nil {
			s := summarize(d.every, d.everyWon)
			r.EverySample = &s
		}
		r.MeanRatio = r.Sequential.MeanChallenges / r.Fixed.MeanChallenges
		if cs.DrawPPM == 0 && len(cs.RatesPPM) <= 4 {
			// Too many looks for the enumeration just means no exact
			// figures.
			if law, err := exactCase(cfg.Rule, cs); err == nil {
				r.Exact = &law
			}
		}
		out[c] = r
	}
	return out, nil
}

func (cfg SimConfig) validate(cases []Case) error {
	if err := cfg.Rule.Validate(); err != nil {
		return err
	}
	if cfg.EverySample != nil {
		if err := cfg.EverySample.Validate(); err != nil {
			return fmt.Errorf("every-sample rule: %w", err)
		}
	}
	if cfg.Fixed.Challenges == 0 || cfg.Fixed.Challenges > MaxChallengesCap || cfg.Fixed.ZMilli == 0 || cfg.Fixed.ZMilli > MaxZMilli {
		return fmt.Errorf("fixed rule: %d challenges at z_milli %d", cfg.Fixed.Challenges, cfg.Fixed.ZMilli)
	}
	if cfg.Duels < 1 {
		return fmt.Errorf("simulation needs at least 1 duel, got %d", cfg.Duels)
	}
	for _, c := range cases {
		if c.RatioPPM == 0 || c.RatioPPM >= PPM {
			return fmt.Errorf("case %s: %w", c.Label(), ErrBadRatio)
		}
		if len(c.RatesPPM) == 0 || len(c.RatesPPM) > MaxEnvs {
			return fmt.Errorf("case %s: %d envs, want 1 to %d", c.Label(), len(c.RatesPPM), MaxEnvs)
		}
		for _, r := range c.RatesPPM {
			if r > PPM {
				return fmt.Errorf("case %s: rate above 1", c.Label())
			}
		}
		if c.DrawPPM >= PPM {
			return fmt.Errorf("case %s: draw probability must be below 1", c.Label())
		}
		for _, r := range []*Rule{&cfg.Rule, cfg.EverySample} {
			if r == nil {
				continue
			}
			if _, err := NewDuel(*r, c.RatioPPM, simEnvs(len(c.RatesPPM))); err != nil {
				return fmt.Errorf("case %s: %w", c.Label(), err)
			}
		}
	}
	return nil
}

func exactCase(rule Rule, c Case) (DuelLaw, error) {
	laws := make([]EnvLaw, len(c.RatesPPM))
	for i, r := range c.RatesPPM {
		l, err := ExactEnv(rule, c.RatioPPM, float64(r)/PPM)
		if err != nil {
			return DuelLaw{}, err
		}
		laws[i] = l
	}
	return ExactDuel(laws)
}

// summarize computes the rate, mean and nearest-rank 95th percentile.
func summarize(challenges []uint32, won []bool) RuleStats {
	var s RuleStats
	sum := 0.0
	for i, n := range challenges {
		sum += float64(n)
		if won[i] {
			s.Dethrones++
		}
	}
	s.DethroneRate = float64(s.Dethrones) / float64(len(won))
	s.MeanChallenges = sum / float64(len(challenges))
	sorted := slices.Clone(challenges)
	slices.Sort(sorted)
	s.P95Challenges = sorted[(95*len(sorted)+99)/100-1]
	return s
}
