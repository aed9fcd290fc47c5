package duel_test

import (
	"math"
	"testing"

	"github.com/affine-ledger/ledger/duel"
)

// TestExactLawsAreTheSameBitsEverywhere pins the exact laws of three
// contenders against the floor, and of their duel, to the bits amd64
// computes. make arm64 runs it on arm64, where Go fuses a*b + c into one
// multiply-add unless the product is rounded first (exact.go): fused, the
// last bits differ and `ledger duel simulate` printed other figures there.
func TestExactLawsAreTheSameBitsEverywhere(t *testing.T) {
	rule := duel.DefaultRule()
	floor := duel.DefaultFrontierParams().Floor()
	var laws []duel.EnvLaw
	for _, p := range []float64{0.55, 0.6, 0.52} {
		l, err := duel.ExactEnv(rule, floor, p)
		if err != nil {
			t.Fatal(err)
		}
		laws = append(laws, l)
	}
	d, err := duel.ExactDuel(laws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  float64
		want uint64
	}{
		{"take probability at 0.55", laws[0].TakeProbability(), 0x3fd85b680e70b0b9},
		{"keep at the last look, at 0.52", laws[2].Keep[len(laws[2].Keep)-1], 0x3fe8d270e86ea31f},
		{"duel dethrone probability", d.Dethrone, 0x3fdb24184412ef04},
		{"duel mean challenges", d.Mean, 0x4086a94c14e1f540},
	} {
		if bits := math.Float64bits(c.got); bits != c.want {
			t.Errorf("%s: %v (%#x), want %v (%#x)", c.name, c.got, bits, math.Float64frombits(c.want), c.want)
		}
	}
}
