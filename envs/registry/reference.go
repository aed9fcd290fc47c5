package registry

import (
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd"
	"github.com/affine-ledger/ledger/envs/coin"
	"github.com/affine-ledger/ledger/envs/mult8"
	"github.com/affine-ledger/ledger/envs/sat"
	"github.com/affine-ledger/ledger/envs/tictactoe"
	"github.com/affine-ledger/ledger/rng"
)

// Reference pairs an environment with its reference players, which see only the
// conversation text, as a model does. Reference miners and the demo use them; validators
// never do.
type Reference struct {
	Factory envs.Factory
	// Solve answers well (optimally where the env allows it); ok is false when the
	// conversation is not this env's.
	Solve func(conversation []envs.Message) (string, bool)
	// Wrong gives a plausible, well-formed answer that scores below the maximum.
	Wrong func(conversation []envs.Message, r *rng.Stream) (string, bool)
}

// References returns the reference players of the current env versions, sorted by name.
func References() []Reference {
	return []Reference{
		{abd.Factory, abd.Solve, abd.Wrong},
		{coin.Factory, coin.Solve, coin.Wrong},
		{mult8.Factory, mult8.Solve, mult8.Wrong},
		{sat.Factory, sat.Solve, sat.Wrong},
		{tictactoe.Factory, tictactoe.Solve, tictactoe.Wrong},
	}
}
