// Package minertest provides what tests of miners and validators need
// without depending on the real environments: two small fake envs (one
// single-turn, one multi-turn with a negative forfeit score), their solvers,
// a reference miner started on loopback, and a hostile miner (NewHostile)
// that attacks its client in each of the ways spec/limits.md bounds.
package minertest

import (
	"net/http/httptest"
	"testing"

	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/miner"
)

// Solvers is the solver table for the fake envs.
func Solvers() []miner.Solver {
	return []miner.Solver{
		{Name: "addtest", Solve: SolveAdd, Wrong: WrongAdd},
		{Name: "guesstest", Solve: SolveGuess, Wrong: WrongGuess},
	}
}

// Start serves a reference miner with cfg on 127.0.0.1 until the test ends
// and returns it with its endpoint. cfg.Solvers defaults to Solvers().
func Start(t testing.TB, cfg miner.Config) (*miner.Server, inference.Endpoint) {
	t.Helper()
	if cfg.Solvers == nil {
		cfg.Solvers = Solvers()
	}
	srv := miner.NewServer(cfg)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, inference.Endpoint{BaseURL: hs.URL + "/v1", Model: srv.Config().Model}
}
