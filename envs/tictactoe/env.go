package tictactoe

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Rewards of a finished game, from the model's side.
const (
	rewardWin  = 1
	rewardDraw = 0
	rewardLoss = -1
)

// reasonContinues is the reason of a step after which the game goes on.
const reasonContinues = "game continues"

type env struct {
	seed    [32]byte
	mistake int64
	model   Mark
	board   Board
	started bool
	done    bool
}

func (e *env) Spec() envs.Spec { return spec }

// draws returns the challenge's two parameters: whether the model plays X,
// and the opponent's mistake rate in percent.
func draws(seed [32]byte) (modelX bool, mistakePercent int64) {
	modelX = rng.New(rng.Derive(seed, "start")).Chance(1, 2)
	mistakePercent = rng.New(rng.Derive(seed, "mistake")).IntRange(MinMistakePercent, MaxMistakePercent)
	return modelX, mistakePercent
}

func (e *env) Reset(id challenge.ID) ([]envs.Message, envs.Info, error) {
	if err := envs.CheckID(spec, id); err != nil {
		// The previous episode ends too: a Step meant for id must not be
		// played on the last board.
		*e = env{}
		return nil, nil, err
	}
	modelX, mistake := draws(id.Seed)
	*e = env{seed: id.Seed, mistake: mistake, model: O, started: true}
	opening := 0
	if modelX {
		e.model = X
	} else {
		opening = opponentMove(e.seed, e.mistake, e.board)
		e.board[opening-1] = X
	}
	info := envs.BaseInfo(id)
	info["model_mark"] = e.model.String()
	info["mistake_percent"] = mistake
	info["opponent_opening"] = int64(opening)
	obs := []envs.Message{
		{Role: envs.RoleSystem, Content: systemPrompt},
		{Role: envs.RoleUser, Content: firstMessage(e.seed, e.model, opening, e.board)},
	}
	return obs, info, nil
}

func (e *env) Step(action string) (envs.Outcome, error) {
	if !e.started {
		return envs.Outcome{}, envs.ErrNotStarted
	}
	if e.done {
		return envs.Outcome{}, envs.ErrDone
	}
	if reason := envs.CheckAnswer(action); reason != "" {
		return e.end(rewardLoss, reason, 0, 0), nil
	}
	cell, reason := parseMove(action)
	if reason != "" {
		return e.end(rewardLoss, reason, 0, 0), nil
	}
	if e.board[cell-1] != Empty {
		return e.end(rewardLoss, fmt.Sprintf("illegal move: cell %d is taken", cell), cell, 0), nil
	}
	e.board[cell-1] = e.model
	if l, won := e.board.line(e.model); won {
		return e.end(rewardWin, fmt.Sprintf("win: you completed cells %d-%d-%d", l[0], l[1], l[2]), cell, 0), nil
	}
	if e.board.empties() == 0 {
		return e.end(rewardDraw, "draw: the board is full", cell, 0), nil
	}

	reply := opponentMove(e.seed, e.mistake, e.board)
	e.board[reply-1] = e.model.other()
	if l, won := e.board.line(e.model.other()); won {
		return e.end(rewardLoss, fmt.Sprintf("loss: your opponent took cell %d and completed cells %d-%d-%d", reply, l[0], l[1], l[2]), cell, reply), nil
	}
	if e.board.empties() == 0 {
		return e.end(rewardDraw, fmt.Sprintf("draw: your opponent took cell %d and the board is full", reply), cell, reply), nil
	}
	return envs.Outcome{
		Observation: []envs.Message{{Role: envs.RoleUser, Content: turnMessage(e.model, cell, reply, e.board)}},
		Reason:      reasonContinues,
		Info:        e.stepInfo(reasonContinues, cell, reply),
	}, nil
}

// end finishes the episode; cells are 0 when no such move was made.
func (e *env) end(reward int, reason string, cell, reply int) envs.Outcome {
	e.done = true
	return envs.Outcome{Reward: reward, Done: true, Reason: reason, Info: e.stepInfo(reason, cell, reply)}
}

func (e *env) stepInfo(reason string, cell, reply int) envs.Info {
	return envs.Info{
		"reason":        reason,
		"board":         e.board.Key(),
		"model_move":    int64(cell),
		"opponent_move": int64(reply),
	}
}
