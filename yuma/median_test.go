package yuma

import (
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

// Cases from subtensor pallets/subtensor/src/tests/math.rs,
// test_math_weighted_median (commit 14bc6f9f). Subtensor asserts equality;
// so do we.
func TestWeightedMedianSubtensorCases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		stake, score []float32
		want         float32
	}{
		{nil, nil, 0},
		{[]float32{0.51}, []float32{1}, 1}, // stake normalized first, below
		{[]float32{0.49, 0.51}, []float32{0.5, 1}, 1},
		{[]float32{0.51, 0.49}, []float32{0.5, 1}, 0.5},
		{[]float32{0.49, 0, 0.51}, []float32{0.5, 0.7, 1}, 1},
		{[]float32{0.49, 0.01, 0.5}, []float32{0.5, 0.7, 1}, 0.7},
		{[]float32{0.49, 0.51, 0}, []float32{0.5, 0.7, 1}, 0.7},
		{[]float32{0, 0.49, 0.51}, []float32{0.5, 0.7, 1}, 1},
		{[]float32{0, 0.49, 0, 0.51}, []float32{0.5, 0.5, 1, 1}, 1},
		{[]float32{0, 0.49, 0, 0.51, 0}, []float32{0.5, 0.5, 1, 1, 0.5}, 1},
		{[]float32{0.2, 0.2, 0.2, 0.2, 0.2}, []float32{0.8, 0.2, 1, 0.6, 0.4}, 0.6},
		{[]float32{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
			[]float32{0.8, 0.8, 0.2, 0.2, 1.0, 1.0, 0.6, 0.6, 0.4, 0.4}, 0.6},
	}
	majority := fromF64(float64(float32(0.51)))
	for k, c := range cases {
		stake := fixeds(c.stake...)
		if k == 1 {
			normalize(stake)
		}
		got := weightedMedian(stake, fixeds(c.score...), iota(len(stake)), One-majority, 0, sum(stake))
		if want := fromF64(float64(c.want)); got != want {
			t.Errorf("case %d: median %v, want %v", k, got, want)
		}
	}
}

func iota(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// The randomized half of test_math_weighted_median: for 100 uids with
// equal or random 0/1 stake and non-decreasing scores, the median must be
// one of the scores at the minority boundary, whatever the uid order.
// Subtensor draws from a random generator; this port draws from the spec'd
// stream so a failure reproduces.
func TestWeightedMedianProperty(t *testing.T) {
	t.Parallel()
	r := rng.New(rng.Derive([32]byte{}, "yuma weighted median"))
	const n = 100
	for _, maj := range []float32{0, 0.0000001, 0.25, 0.49, 0.49, 0.49, 0.5, 0.51, 0.51, 0.51, 0.9999999, 1} {
		majority := fromF64(float64(maj))
		for _, allowEqual := range []bool{false, true} {
			stake := make([]Fixed, n)
			score := make([]Fixed, n)
			var last Fixed
			for i := range n {
				if allowEqual {
					if r.Chance(1, 2) {
						stake[i] = One
					}
					if r.Chance(1, 2) {
						last += One
					}
					score[i] = last
				} else {
					stake[i] = One
					score[i] = FromUint16(uint16(i))
				}
			}
			normalize(stake)
			total := sum(stake)
			minority := max(total-majority, 0)
			var medians []Fixed
			var medianStake, acc Fixed
			set := false
			for i := range n {
				acc += stake[i]
				if !set && acc >= minority {
					medianStake, set = acc, true
				}
				if set {
					if medianStake < acc {
						if medianStake == minority && !slices.Contains(medians, score[i]) {
							medians = append(medians, score[i])
						}
						break
					}
					if !slices.Contains(medians, score[i]) {
						medians = append(medians, score[i])
					}
				}
			}
			if len(medians) == 0 {
				medians = append(medians, 0)
			}
			for perm := range 11 {
				got := weightedMedian(stake, score, iota(n), minority, 0, total)
				if !slices.Contains(medians, got) {
					t.Fatalf("majority %v equal %v permutation %d: median %v not in %v", maj, allowEqual, perm, got, medians)
				}
				p := iota(n)
				r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
				s2, c2 := make([]Fixed, n), make([]Fixed, n)
				for i, k := range p {
					s2[i], c2[i] = stake[k], score[k]
				}
				stake, score = s2, c2
			}
		}
	}
}

// Cases from test_math_weighted_median_col and
// test_math_weighted_median_col_sparse (the same numbers).
func TestConsensusSubtensorCases(t *testing.T) {
	t.Parallel()
	w1 := []float32{0, 0.1, 0, 0, 0.2, 0.4, 0, 0.3, 0.1, 0, 0.4, 0.5}
	w2 := []float32{0, 0.1, 0, 0, 0.2, 0.4, 0, 0.3, 0.1, 0, 0, 0.5}
	cases := []struct {
		stake   []float32
		weights matrix
		kappa   float32
		want    []float32
	}{
		{nil, nil, 0.5, nil},
		{[]float32{0, 0}, mat([]float32{0, 0, 0, 0}, 2, false), 0.5, []float32{0, 0}},
		{[]float32{0, 0.75, 0.25, 0}, mat(w1, 4, false), 0.24, []float32{0, 0.3, 0.4}},
		{[]float32{0, 0.75, 0.25, 0}, mat(w1, 4, false), 0.26, []float32{0, 0.2, 0.4}},
		{[]float32{0, 0.75, 0.25, 0}, mat(w1, 4, false), 0.76, []float32{0, 0.2, 0.1}},
		{[]float32{0, 0.3, 0.2, 0.5}, mat(w2, 4, false), 0.51, []float32{0, 0, 0.4}},
	}
	for k, c := range cases {
		got := consensus(fixeds(c.stake...), c.weights, width(c.weights), fromF64(float64(c.kappa)))
		assertVec(t, "consensus case "+string(rune('0'+k)), got, fixeds(c.want...), 0)
	}
}
