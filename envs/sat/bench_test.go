package sat

import (
	"testing"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
)

func BenchmarkGenerate(b *testing.B) { envtest.BenchmarkGenerate(b, Factory) }

func BenchmarkScore(b *testing.B) { envtest.BenchmarkScore(b, Factory, envtest.FromText(Solve)) }

// BenchmarkSolve is the reference miner's cost per challenge: parsing the
// prompt and DPLL.
func BenchmarkSolve(b *testing.B) {
	ids := envtest.IDs(Factory, 256)
	prompts := make([][]envs.Message, len(ids))
	for i, id := range ids {
		obs, _, err := Factory.New().Reset(id)
		if err != nil {
			b.Fatal(err)
		}
		prompts[i] = obs
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := Solve(prompts[i%len(prompts)]); !ok {
			b.Fatal("unsolved")
		}
	}
}
