package miner

import (
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Solver answers one environment. Both functions return ok=false for a
// conversation that is not their env's, which is how the server finds the
// right solver: it asks each in turn.
type Solver struct {
	Name string
	// Solve returns the answer that scores the env's best.
	Solve func(conversation []envs.Message) (answer string, ok bool)
	// Wrong returns a plausible answer that does not score the best,
	// drawing any choice it makes from r.
	Wrong func(conversation []envs.Message, r *rng.Stream) (answer string, ok bool)
}

// Fallback is the reply to a conversation no solver recognises: what an
// honest model says, which no env scores as right.
const Fallback = "I do not know."

func solve(table []Solver, conversation []envs.Message) string {
	for _, s := range table {
		if s.Solve == nil {
			continue
		}
		if a, ok := s.Solve(conversation); ok {
			return a
		}
	}
	return Fallback
}

func wrong(table []Solver, conversation []envs.Message, r *rng.Stream) string {
	for _, s := range table {
		if s.Wrong == nil {
			continue
		}
		if a, ok := s.Wrong(conversation, r); ok {
			return a
		}
	}
	return Fallback
}
