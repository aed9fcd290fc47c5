package duel

import (
	"errors"
	"fmt"
)

// Outcome is one challenge seen from the contender. Its values are the
// letters that spell it in a record's outcomes string.
type Outcome byte

// The three outcomes.
const (
	Win  Outcome = 'W'
	Loss Outcome = 'L'
	Draw Outcome = 'D'
)

// Judge compares the rewards the two models earned on the same challenge:
// the contender wins with the higher reward, loses with the lower, and
// draws on equal rewards (both right or both wrong).
func Judge(championReward, contenderReward int64) Outcome {
	switch {
	case contenderReward > championReward:
		return Win
	case contenderReward < championReward:
		return Loss
	default:
		return Draw
	}
}

// Valid reports whether o is one of the three outcomes.
func (o Outcome) Valid() bool { return o == Win || o == Loss || o == Draw }

// Decision is who holds an env (or the duel).
type Decision uint8

// Decisions. Open means not decided yet.
const (
	Open Decision = iota
	Contender
	Champion
)

// String returns the record spelling: "open", "contender" or "champion".
func (d Decision) String() string {
	switch d {
	case Open:
		return "open"
	case Contender:
		return "contender"
	case Champion:
		return "champion"
	}
	return fmt.Sprintf("Decision(%d)", uint8(d))
}

// Reason says why an env was decided.
type Reason uint8

// Reasons. ReasonNone belongs to open envs.
const (
	ReasonNone Reason = iota
	// ReasonBound: the interval cleared the ratio to beat at a look.
	ReasonBound
	// ReasonLastLook: the last look left the ratio inside the interval.
	ReasonLastLook
	// ReasonMaxChallenges: the env used up Rule.MaxChallenges before its
	// last look (too many draws).
	ReasonMaxChallenges
)

// String returns the record spelling: "", "bound", "last_look" or
// "max_challenges".
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return ""
	case ReasonBound:
		return "bound"
	case ReasonLastLook:
		return "last_look"
	case ReasonMaxChallenges:
		return "max_challenges"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// ErrDecided is returned when an outcome is added to an env (or duel) that
// needs no more.
var ErrDecided = errors.New("already decided")

// ErrBadRatio is wrapped when a ratio to beat is outside (0, PPM).
var ErrBadRatio = errors.New("ratio to beat must be in (0, 1000000) ppm")

// EnvState is the sequential test of one env. Feed it outcomes in the order
// the challenges were drawn; it decides at the looks of its Rule and then
// refuses more. It is not safe for concurrent use.
//
// Invariant: Decision() is Open exactly while fewer than Rule.MaxChallenges
// outcomes were added and no look has decided; once decided, the counts
// never change again.
type EnvState struct {
	rule  Rule
	ratio uint32

	wins, losses, draws uint32
	// looks counts the looks taken; lookWins is the win count at the last.
	looks    int
	lookWins uint32

	decision Decision
	reason   Reason
}

// NewEnvState starts the test of one env against ratioPPM, the ratio to beat
// in force when the duel started.
func NewEnvState(rule Rule, ratioPPM uint32) (*EnvState, error) {
	if err := rule.Validate(); err != nil {
		return nil, err
	}
	if ratioPPM == 0 || ratioPPM >= PPM {
		return nil, fmt.Errorf("%w: got %d", ErrBadRatio, ratioPPM)
	}
	return &EnvState{rule: rule.clone(), ratio: ratioPPM}, nil
}

// Add records one outcome and takes a look when the decisive count reaches
// the next one.
func (s *EnvState) Add(o Outcome) error {
	if len(s.rule.Looks) == 0 {
		return errors.New("EnvState not started: use NewEnvState")
	}
	if s.decision != Open {
		return fmt.Errorf("env decided for the %s: %w", s.decision, ErrDecided)
	}
	switch o {
	case Win:
		s.wins++
	case Loss:
		s.losses++
	case Draw:
		s.draws++
	default:
		return fmt.Errorf("outcome %q is not W, L or D", byte(o))
	}
	if o != Draw && s.wins+s.losses == s.rule.Looks[s.looks] {
		s.look()
	}
	if s.decision == Open && s.wins+s.losses+s.draws == s.rule.MaxChallenges {
		s.decision, s.reason = Champion, ReasonMaxChallenges
	}
	return nil
}

func (s *EnvState) look() {
	n := s.wins + s.losses
	s.looks++
	s.lookWins = s.wins
	switch {
	case LowerExceeds(s.wins, n, s.rule.ZMilli, s.ratio):
		s.decision, s.reason = Contender, ReasonBound
	case UpperBelow(s.wins, n, s.rule.ZMilli, s.ratio):
		s.decision, s.reason = Champion, ReasonBound
	case s.looks == len(s.rule.Looks):
		s.decision, s.reason = Champion, ReasonLastLook
	}
}

// Decision returns who holds the env so far.
func (s *EnvState) Decision() Decision { return s.decision }

// Reason returns why the env was decided (ReasonNone while open).
func (s *EnvState) Reason() Reason { return s.reason }

// Counts returns the wins, losses and draws added so far.
func (s *EnvState) Counts() (wins, losses, draws uint32) { return s.wins, s.losses, s.draws }

// Challenges returns the number of outcomes added.
func (s *EnvState) Challenges() uint32 { return s.wins + s.losses + s.draws }

// Looks returns the number of looks taken.
func (s *EnvState) Looks() int { return s.looks }

// Bounds returns the Wilson bounds (ppm) at the last look taken, or
// [0, PPM] before the first.
func (s *EnvState) Bounds() (lower, upper uint32) {
	if s.looks == 0 {
		return 0, PPM
	}
	return Bounds(s.lookWins, s.rule.Looks[s.looks-1], s.rule.ZMilli)
}

// RatePPM returns the contender's win rate floor(10⁶·wins/(wins+losses)),
// or PPM/2 before any decisive outcome.
func (s *EnvState) RatePPM() uint32 { return RatePPM(s.wins, s.losses) }

// RatePPM is floor(10⁶·wins/(wins+losses)), or PPM/2 (no information) when
// both are 0.
func RatePPM(wins, losses uint32) uint32 {
	n := uint64(wins) + uint64(losses)
	if n == 0 {
		return PPM / 2
	}
	return uint32(uint64(PPM) * uint64(wins) / n)
}
