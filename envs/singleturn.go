package envs

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
)

// CheckID refuses an ID that is not for spec's env and version.
func CheckID(spec Spec, id challenge.ID) error {
	if id.Env != spec.Name || id.Version != spec.Version {
		return fmt.Errorf("%w: %s is not %s v%d", ErrWrongEnv, id, spec.Name, spec.Version)
	}
	return nil
}

// BaseInfo returns the info every Reset reports.
func BaseInfo(id challenge.ID) Info {
	return Info{"challenge_id": id.String(), "env": id.Env, "version": int64(id.Version)}
}

// Task is one generated single-turn challenge: it scores an answer that has
// already passed CheckAnswer.
type Task interface {
	Score(answer string) (reward int, reason string)
}

// Generator is the part of a single-turn environment that is particular to
// it: its spec and how a challenge ID becomes messages, info and a task.
// Generate is only called with IDs that passed CheckID.
type Generator interface {
	Spec() Spec
	Generate(id challenge.ID) ([]Message, Info, Task)
}

// SingleTurn makes a Factory for a one-question, one-answer environment out
// of its Generator, so that every such env shares one lifecycle.
func SingleTurn(g Generator) Factory { return singleTurnFactory{g} }

type singleTurnFactory struct{ g Generator }

func (f singleTurnFactory) Spec() Spec { return f.g.Spec() }
func (f singleTurnFactory) New() Env   { return &singleTurnEnv{g: f.g} }

type singleTurnEnv struct {
	g    Generator
	task Task
	done bool
}

func (e *singleTurnEnv) Spec() Spec { return e.g.Spec() }

func (e *singleTurnEnv) Reset(id challenge.ID) ([]Message, Info, error) {
	if err := CheckID(e.g.Spec(), id); err != nil {
		// The previous episode ends too: a Step meant for id must not be
		// scored against the last challenge.
		e.task, e.done = nil, false
		return nil, nil, err
	}
	obs, info, task := e.g.Generate(id)
	e.task, e.done = task, false
	return obs, info, nil
}

func (e *singleTurnEnv) Step(action string) (Outcome, error) {
	if e.task == nil {
		return Outcome{}, ErrNotStarted
	}
	if e.done {
		return Outcome{}, ErrDone
	}
	e.done = true
	var reward int
	reason := CheckAnswer(action)
	if reason == "" {
		reward, reason = e.task.Score(action)
	}
	return Outcome{Reward: reward, Done: true, Reason: reason, Info: Info{"reason": reason}}, nil
}
