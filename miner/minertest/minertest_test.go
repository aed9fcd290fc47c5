package minertest

import (
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestAddConforms(t *testing.T) {
	envtest.Conformance(t, Add, envtest.Options{N: 50, Solver: envtest.FromText(SolveAdd), SolvedReward: 1})
}

func TestGuessConforms(t *testing.T) {
	envtest.Conformance(t, Guess, envtest.Options{N: 100, Solver: envtest.FromText(SolveGuess), SolvedReward: 1})
}

func wrongSolver(w func([]envs.Message, *rng.Stream) (string, bool)) envtest.Solver {
	r := rng.New([32]byte{7})
	return func(_ challenge.ID, conv []envs.Message) string {
		a, _ := w(conv, r)
		return a
	}
}

func TestWrongNeverWins(t *testing.T) {
	for _, id := range envtest.IDs(Add, 50) {
		ep, err := envtest.Play(Add, id, wrongSolver(WrongAdd))
		if err != nil || ep.Reward != 0 {
			t.Fatalf("%s: wrong answer scored %d (%v)", id, ep.Reward, err)
		}
	}
	for _, id := range envtest.IDs(Guess, 50) {
		ep, err := envtest.Play(Guess, id, wrongSolver(WrongGuess))
		if err != nil || ep.Reward != 0 || ep.Reason != "out of turns" {
			t.Fatalf("%s: always-wrong guesser got %d %q (%v)", id, ep.Reward, ep.Reason, err)
		}
	}
}

func TestSolversRefuseOtherEnvs(t *testing.T) {
	other := []envs.Message{{Role: envs.RoleUser, Content: "What is the capital of France?"}}
	for _, s := range Solvers() {
		if _, ok := s.Solve(other); ok {
			t.Errorf("%s: Solve claims a foreign conversation", s.Name)
		}
		if _, ok := s.Wrong(other, rng.New([32]byte{})); ok {
			t.Errorf("%s: Wrong claims a foreign conversation", s.Name)
		}
	}
}
