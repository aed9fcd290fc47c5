package miner_test

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
)

// solvedReward is what the reference solver reaches in each env: a draw
// against tictactoe's perfect opponent, a win elsewhere; coin is a guess.
var solvedReward = map[string]int{"mult8": 1, "tictactoe": 0, "sat": 1, "abd": 1}

func TestEnvSolversOverHTTP(t *testing.T) {
	_, perfect := minertest.Start(t, miner.Config{Strategy: strategy(t, "perfect"), Solvers: miner.EnvSolvers()})
	_, wrong := minertest.Start(t, miner.Config{Strategy: strategy(t, "noisy:0"), Solvers: miner.EnvSolvers()})
	c := client(inference.Options{})
	for _, f := range registry.Current() {
		name := f.Spec().Name
		for _, id := range envtest.IDs(f, 8) {
			good, err := inference.Play(context.Background(), c, perfect, f, id)
			if err != nil || good.Error != "" {
				t.Fatalf("%s: perfect: %v %s", id, err, good.Error)
			}
			bad, err := inference.Play(context.Background(), c, wrong, f, id)
			if err != nil || bad.Error != "" {
				t.Fatalf("%s: wrong: %v %s", id, err, bad.Error)
			}
			want, known := solvedReward[name]
			if !known {
				continue // coin: the answer is not in the prompt
			}
			if good.Reward < want {
				t.Errorf("%s: perfect miner scored %d (%s), want %d", id, good.Reward, good.Reason, want)
			}
			if bad.Reward >= want {
				t.Errorf("%s: always-wrong miner scored %d (%s)", id, bad.Reward, bad.Reason)
			}
		}
	}
}
