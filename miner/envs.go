package miner

import "github.com/affine-ledger/ledger/envs/registry"

// EnvSolvers is the table `ledger miner serve` answers with: the reference players of every
// current env. Each recognises only its own env's prompts, so the order matters only for
// speed.
func EnvSolvers() []Solver {
	var out []Solver
	for _, ref := range registry.References() {
		out = append(out, Solver{Name: ref.Factory.Spec().Name, Solve: ref.Solve, Wrong: ref.Wrong})
	}
	return out
}
