package tictactoe

import (
	"testing"

	"github.com/affine-ledger/ledger/envs/envtest"
)

func BenchmarkGenerate(b *testing.B) { envtest.BenchmarkGenerate(b, Factory) }

func BenchmarkScore(b *testing.B) { envtest.BenchmarkScore(b, Factory, envtest.FromText(Solve)) }

func BenchmarkParseMove(b *testing.B) {
	reply := "<think>The corner is strong, but the centre is stronger.</think>\nI'll play the centre.\n\n<move>5</move>"
	for i := 0; i < b.N; i++ {
		if c, _ := parseMove(reply); c != 5 {
			b.Fatal(c)
		}
	}
}
