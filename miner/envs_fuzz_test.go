package miner

import (
	"testing"
	"time"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/rng"
)

// FuzzEnvSolvers feeds the env solvers conversations a client may send:
// the server hands them any request, so they must never panic.
func FuzzEnvSolvers(f *testing.F) {
	f.Add("You are a careful calculator.", "What is 12345678 * 87654321?", "<answer>1</answer>", "higher")
	f.Add("", "Coin toss #123456: a fair coin", "", "")
	for _, factory := range registry.Current() {
		obs, _, err := factory.New().Reset(envtest.IDs(factory, 1)[0])
		if err != nil || len(obs) == 0 {
			f.Fatalf("%s: reset: %v", factory.Spec().Name, err)
		}
		f.Add(obs[0].Content, obs[len(obs)-1].Content, solve(EnvSolvers(), obs), "")
	}
	table := EnvSolvers()
	f.Fuzz(func(t *testing.T, system, user, reply, next string) {
		conv := []envs.Message{
			{Role: envs.RoleSystem, Content: system},
			{Role: envs.RoleUser, Content: user},
			{Role: envs.RoleAssistant, Content: reply},
			{Role: envs.RoleUser, Content: next},
		}
		for _, c := range [][]envs.Message{conv[:2], conv} {
			for _, s := range table {
				start := time.Now()
				s.Solve(c)
				s.Wrong(c, rng.New([32]byte{1}))
				if d := time.Since(start); d > 10*time.Second { // a request must not stall the server
					t.Fatalf("%s took %v on %q", s.Name, d, c)
				}
			}
		}
	})
}
