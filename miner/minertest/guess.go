package minertest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Guess is a multi-turn fake env "guesstest" v1: find a number in [1, 100]
// in at most 7 guesses, told "higher" or "lower" after each. Found: 1; out of
// turns: 0; an empty or unparseable guess forfeits: -1.
var Guess envs.Factory = guessFactory{}

const guessTurns = 7

type guessFactory struct{}

func (guessFactory) Spec() envs.Spec {
	return envs.Spec{
		Name: "guesstest", Version: 1, Description: "test env: guess a number",
		Observation: envs.Space{Kind: "text", Description: "higher or lower"},
		Action:      envs.Space{Kind: "text", Description: "<guess>N</guess>", MaxBytes: envs.MaxAnswerBytes},
		MaxTurns:    guessTurns, MinReward: -1, MaxReward: 1,
	}
}

func (f guessFactory) New() envs.Env { return &guessEnv{} }

type guessEnv struct {
	secret  int64
	turn    int
	started bool
	done    bool
}

func (e *guessEnv) Spec() envs.Spec { return guessFactory{}.Spec() }

func (e *guessEnv) Reset(id challenge.ID) ([]envs.Message, envs.Info, error) {
	if err := envs.CheckID(e.Spec(), id); err != nil {
		return nil, nil, err
	}
	*e = guessEnv{secret: rng.New(id.Seed).IntRange(1, 100), started: true}
	prompt := fmt.Sprintf("[guesstest] Game %x: I picked a number between 1 and 100. Guess it: <guess>N</guess>.", id.Seed[:4])
	return []envs.Message{{Role: envs.RoleUser, Content: prompt}}, envs.BaseInfo(id), nil
}

func (e *guessEnv) Step(action string) (envs.Outcome, error) {
	if !e.started {
		return envs.Outcome{}, envs.ErrNotStarted
	}
	if e.done {
		return envs.Outcome{}, envs.ErrDone
	}
	e.turn++
	end := func(reward int, reason string) (envs.Outcome, error) {
		e.done = true
		return envs.Outcome{Reward: reward, Done: true, Reason: reason, Info: envs.Info{"reason": reason}}, nil
	}
	if reason := envs.CheckAnswer(action); reason != "" {
		return end(-1, "forfeit: "+reason)
	}
	g, ok := parseGuess(action)
	if !ok {
		return end(-1, "forfeit: no <guess> integer")
	}
	switch {
	case g == e.secret:
		return end(1, envs.ReasonCorrect)
	case e.turn >= guessTurns:
		return end(0, "out of turns")
	}
	hint := "higher"
	if g > e.secret {
		hint = "lower"
	}
	return envs.Outcome{Observation: []envs.Message{{Role: envs.RoleUser, Content: hint}}}, nil
}

func parseGuess(text string) (int64, bool) {
	s, ok := envs.LastTagged(envs.Clean(text), "guess")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// guessBounds replays the hints of a guesstest conversation into the
// interval still possible.
func guessBounds(conversation []envs.Message) (lo, hi int64, ok bool) {
	if len(conversation) == 0 || !strings.HasPrefix(conversation[0].Content, "[guesstest]") {
		return 0, 0, false
	}
	lo, hi = 1, 100
	var last int64
	for _, m := range conversation[1:] {
		switch {
		case m.Role == envs.RoleAssistant:
			last, _ = parseGuess(m.Content)
		case m.Content == "higher":
			lo = max(lo, last+1)
		case m.Content == "lower":
			hi = min(hi, last-1)
		}
	}
	return lo, hi, true
}

// SolveGuess bisects.
func SolveGuess(conversation []envs.Message) (string, bool) {
	lo, hi, ok := guessBounds(conversation)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("<guess>%d</guess>", (lo+hi)/2), true
}

// WrongGuess guesses a number already ruled out (0 on the first turn), so
// it is wrong and wastes the turn.
func WrongGuess(conversation []envs.Message, r *rng.Stream) (string, bool) {
	lo, hi, ok := guessBounds(conversation)
	if !ok {
		return "", false
	}
	g := lo - 1
	if hi < 100 && (g < 1 || r.Chance(1, 2)) {
		g = hi + 1
	}
	return fmt.Sprintf("<guess>%d</guess>", max(g, 0)), true
}
