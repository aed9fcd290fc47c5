// Package tictactoe is a multi-turn environment: the model plays
// tic-tac-toe against a built-in opponent that plays minimax with seeded
// mistakes, so that it is strong but beatable and replays exactly
// (spec/envs/tictactoe.md).
package tictactoe

import "github.com/affine-ledger/ledger/envs"

// Name and Version identify the environment in challenge IDs.
const (
	Name    = "tictactoe"
	Version = 1
)

// The opponent's mistake rate is drawn per challenge from this range, in
// percent: high enough that perfect play wins a fair share of games, low
// enough that careless play loses.
const (
	MinMistakePercent = 10
	MaxMistakePercent = 30
)

// Factory makes tictactoe v1 environments.
var Factory envs.Factory = factory{}

type factory struct{}

func (factory) Spec() envs.Spec { return spec }
func (factory) New() envs.Env   { return &env{} }

var spec = envs.Spec{
	Name:        Name,
	Version:     Version,
	Description: "Tic-tac-toe against a minimax opponent that makes seeded mistakes; win +1, draw 0, loss -1.",
	Observation: envs.Space{
		Kind:        "chat",
		Description: "The rules, then after each move the board as ASCII art with the opponent's reply.",
	},
	Action: envs.Space{
		Kind:        "text",
		Description: "A reply naming an empty cell 1 to 9 as <move>N</move>.",
		MaxBytes:    envs.MaxAnswerBytes,
	},
	// X moves at most five times, O at most four.
	MaxTurns:  5,
	MinReward: -1,
	MaxReward: 1,
}
