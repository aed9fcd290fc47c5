package abd

import (
	"testing"

	"github.com/affine-ledger/ledger/envs/envtest"
)

func BenchmarkGenerate(b *testing.B) { envtest.BenchmarkGenerate(b, Factory) }

func BenchmarkScore(b *testing.B) { envtest.BenchmarkScore(b, Factory, envtest.FromText(Solve)) }
