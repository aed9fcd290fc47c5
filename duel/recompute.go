package duel

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
)

// ErrUndecided is returned by Recompute when the outcomes given do not
// decide the duel.
var ErrUndecided = errors.New("duel not decided by these outcomes")

// Sample is one answered challenge and its outcome for the contender.
type Sample struct {
	ID      challenge.ID
	Outcome Outcome
}

// EnvInput is the samples of one env, in the order the challenges were
// drawn.
type EnvInput struct {
	Env     string
	Samples []Sample
}

// Input is everything a duel result is computed from.
type Input struct {
	Start     Anchor
	Champion  Side
	Contender Side
	Rule      Rule
	RatioPPM  uint32
	// Envs in strictly increasing byte order of their names.
	Envs []EnvInput
}

// Recompute replays the samples through the sequential rule and returns the
// duel's decision record. It is the only way records are made, so that
// writing a record and auditing one are the same computation. Samples of an
// env must stop once that env is decided; an env still open when the duel
// was decided may have any number of samples.
func Recompute(in Input) (Result, error) {
	if err := checkSides(in.Champion, in.Contender); err != nil {
		return Result{}, err
	}
	names := make([]string, len(in.Envs))
	for i, e := range in.Envs {
		names[i] = e.Env
	}
	d, err := NewDuel(in.Rule, in.RatioPPM, names)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	r := Result{
		Type:      ResultType,
		Version:   ResultVersion,
		Start:     in.Start,
		Champion:  cloneSide(in.Champion),
		Contender: cloneSide(in.Contender),
		Rule:      in.Rule.clone(),
		RatioPPM:  in.RatioPPM,
		Envs:      make([]EnvResult, len(in.Envs)),
	}
	rates := make([]uint32, len(in.Envs))
	for i, e := range in.Envs {
		if err := feed(d, i, e); err != nil {
			return Result{}, err
		}
		r.Envs[i] = envResult(e, d.State(i))
		rates[i] = r.Envs[i].RatePPM
	}
	winner := d.Winner()
	if winner == Open {
		won, kept, open := d.Tally()
		return Result{}, fmt.Errorf("%w: contender holds %d envs, champion %d, %d open", ErrUndecided, won, kept, open)
	}
	won, _, _ := d.Tally()
	r.Winner = winner.String()
	r.EnvsWon = uint32(won)
	r.GeoMeanPPM = GeoMeanPPM(rates)
	return r, nil
}

func feed(d *Duel, i int, e EnvInput) error {
	seen := make(map[challenge.ID]int, len(e.Samples))
	for j, s := range e.Samples {
		if s.ID.Env != e.Env {
			return fmt.Errorf("%w: env %s sample %d: challenge %s is of env %q", ErrMalformed, e.Env, j, s.ID, s.ID.Env)
		}
		if _, err := s.ID.MarshalBinary(); err != nil || s.ID.Version == 0 {
			return fmt.Errorf("%w: env %s sample %d: invalid challenge ID %s", ErrMalformed, e.Env, j, s.ID)
		}
		if k, dup := seen[s.ID]; dup {
			return fmt.Errorf("%w: env %s sample %d: challenge %s already answered as sample %d", ErrMalformed, e.Env, j, s.ID, k)
		}
		seen[s.ID] = j
		if err := d.AddAt(i, s.Outcome); err != nil {
			return fmt.Errorf("%w: sample %d (%s): %w", ErrMalformed, j, s.ID, err)
		}
	}
	return nil
}

func envResult(e EnvInput, s *EnvState) EnvResult {
	w, l, dr := s.Counts()
	lower, upper := s.Bounds()
	out := EnvResult{
		Env:        e.Env,
		Challenges: make([]challenge.ID, len(e.Samples)),
		Wins:       w,
		Losses:     l,
		Draws:      dr,
		Looks:      uint32(s.Looks()),
		LowerPPM:   lower,
		UpperPPM:   upper,
		RatePPM:    s.RatePPM(),
		Decision:   s.Decision().String(),
		Reason:     s.Reason().String(),
	}
	outcomes := make([]byte, len(e.Samples))
	for j, smp := range e.Samples {
		out.Challenges[j] = smp.ID
		outcomes[j] = byte(smp.Outcome)
	}
	out.Outcomes = string(outcomes)
	return out
}

func checkSides(champion, contender Side) error {
	for _, s := range []struct {
		name string
		side Side
	}{{"champion", champion}, {"contender", contender}} {
		if len(s.side.ModelHash) > MaxModelHash {
			return fmt.Errorf("%w: %s model hash has %d bytes, max %d", ErrMalformed, s.name, len(s.side.ModelHash), MaxModelHash)
		}
	}
	if champion.Hotkey == contender.Hotkey {
		return fmt.Errorf("%w: champion and contender are the same hotkey %s", ErrMalformed, champion.Hotkey)
	}
	return nil
}

func cloneSide(s Side) Side {
	s.ModelHash = append(HexBytes{}, s.ModelHash...)
	return s
}

// Input returns what r was computed from, reading its challenges and
// outcomes back.
func (r Result) Input() (Input, error) {
	in := Input{
		Start:     r.Start,
		Champion:  r.Champion,
		Contender: r.Contender,
		Rule:      r.Rule,
		RatioPPM:  r.RatioPPM,
		Envs:      make([]EnvInput, len(r.Envs)),
	}
	for i, e := range r.Envs {
		if len(e.Outcomes) != len(e.Challenges) {
			return Input{}, fmt.Errorf("%w: env %s has %d outcomes for %d challenges", ErrMalformed, e.Env, len(e.Outcomes), len(e.Challenges))
		}
		samples := make([]Sample, len(e.Challenges))
		for j, id := range e.Challenges {
			o := Outcome(e.Outcomes[j])
			if !o.Valid() {
				return Input{}, fmt.Errorf("%w: env %s outcome %d is %q, want W, L or D", ErrMalformed, e.Env, j, e.Outcomes[j])
			}
			samples[j] = Sample{ID: id, Outcome: o}
		}
		in.Envs[i] = EnvInput{Env: e.Env, Samples: samples}
	}
	return in, nil
}

// Verify checks that r is exactly the record Recompute makes of r's own
// challenges and outcomes: the type and version, every count, bound, rate
// and decision, the winner and the geometric mean.
func Verify(r Result) error {
	if r.Type != ResultType || r.Version != ResultVersion {
		return fmt.Errorf("%w: type %q version %d, want %q version %d", ErrMalformed, r.Type, r.Version, ResultType, ResultVersion)
	}
	in, err := r.Input()
	if err != nil {
		return err
	}
	want, err := Recompute(in)
	if err != nil {
		return err
	}
	if msg := firstDifference(r, want); msg != "" {
		return fmt.Errorf("%w: %s", ErrMalformed, msg)
	}
	got, err := codec.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	exp, err := codec.Marshal(want)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if !bytes.Equal(got, exp) {
		return fmt.Errorf("%w: does not encode as its recomputation does", ErrMalformed)
	}
	return nil
}

// firstDifference names the first derived field where got and want differ,
// so an auditor learns what is wrong, not just that something is.
func firstDifference(got, want Result) string {
	for i := range want.Envs {
		g, w := got.Envs[i], want.Envs[i]
		fields := []struct {
			name     string
			got, exp any
		}{
			{"wins", g.Wins, w.Wins}, {"losses", g.Losses, w.Losses}, {"draws", g.Draws, w.Draws},
			{"looks", g.Looks, w.Looks}, {"lower_ppm", g.LowerPPM, w.LowerPPM}, {"upper_ppm", g.UpperPPM, w.UpperPPM},
			{"rate_ppm", g.RatePPM, w.RatePPM}, {"decision", g.Decision, w.Decision}, {"reason", g.Reason, w.Reason},
		}
		for _, f := range fields {
			if f.got != f.exp {
				return fmt.Sprintf("env %s: %s is %v, recomputed %v", w.Env, f.name, f.got, f.exp)
			}
		}
	}
	fields := []struct {
		name     string
		got, exp any
	}{
		{"winner", got.Winner, want.Winner}, {"envs_won", got.EnvsWon, want.EnvsWon}, {"geomean_ppm", got.GeoMeanPPM, want.GeoMeanPPM},
	}
	for _, f := range fields {
		if f.got != f.exp {
			return fmt.Sprintf("%s is %v, recomputed %v", f.name, f.got, f.exp)
		}
	}
	return ""
}
