package duel

import (
	"math"
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

// Published 95% Wilson score intervals (no continuity correction):
// Newcombe, "Two-sided confidence intervals for the single proportion:
// comparison of seven methods", Statistics in Medicine 17:857-872 (1998),
// Table II, method 3, to 4 decimals. 20/20 is 0/20 mirrored (L(k,n) =
// 1 - U(n-k,n)), the k = n case.
var newcombe = []struct {
	k, n         uint32
	lower, upper float64
}{
	{81, 263, 0.2553, 0.3662},
	{15, 148, 0.0624, 0.1605},
	{0, 20, 0.0000, 0.1611},
	{1, 29, 0.0061, 0.1718},
	{20, 20, 0.8389, 1.0000},
}

func TestWilsonMatchesNewcombe(t *testing.T) {
	for _, c := range newcombe {
		lo, hi := Wilson(c.k, c.n, 1.96)
		if math.Abs(lo-c.lower) > 0.00005 || math.Abs(hi-c.upper) > 0.00005 {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f], published [%.4f, %.4f]", c.k, c.n, lo, hi, c.lower, c.upper)
		}
		// The integer bounds round outward by less than 1 ppm.
		l, u := Bounds(c.k, c.n, 1960)
		if math.Abs(float64(l)/PPM-c.lower) > 0.00005+1e-6 || math.Abs(float64(u)/PPM-c.upper) > 0.00005+1e-6 {
			t.Errorf("Bounds(%d, %d) = [%d, %d] ppm, published [%.4f, %.4f]", c.k, c.n, l, u, c.lower, c.upper)
		}
	}
}

func TestBoundsEdges(t *testing.T) {
	cases := []struct {
		w, n, z      uint32
		lower, upper uint32
	}{
		{0, 0, 1960, 0, PPM},
		// k = 0: the lower bound is exactly 0 and the upper z²/(n+z²).
		// 3.8416/23.8416 = 0.161130...
		{0, 20, 1960, 0, 161131},
		// k = n mirrors it: 20/23.8416 = 0.838869...
		{20, 20, 1960, 838869, PPM},
		// n = 1: 1/(1+3.8416) = 0.206543...
		{1, 1, 1960, 206543, PPM},
		{0, 1, 1960, 0, 793457},
	}
	for _, c := range cases {
		l, u := Bounds(c.w, c.n, c.z)
		if l != c.lower || u != c.upper {
			t.Errorf("Bounds(%d, %d, %d) = [%d, %d], want [%d, %d]", c.w, c.n, c.z, l, u, c.lower, c.upper)
		}
	}
}

// The integer bounds are the closed form's, rounded outward: lower is
// floor(10⁶·L) and upper ceil(10⁶·U), up to float error in the closed form.
func TestBoundsMatchClosedForm(t *testing.T) {
	t.Parallel()
	for _, z := range []uint32{1000, 1960, 2576, 9999} {
		for n := uint32(1); n <= 300; n++ {
			for w := uint32(0); w <= n; w++ {
				checkClosedForm(t, w, n, z)
			}
		}
	}
	r := rng.New(rng.Derive([32]byte{}, "bounds"))
	for range 20000 {
		n := uint32(r.IntRange(1, MaxLookSize))
		checkClosedForm(t, uint32(r.IntRange(0, int64(n))), n, uint32(r.IntRange(1, MaxZMilli)))
	}
}

func checkClosedForm(t *testing.T, w, n, z uint32) {
	t.Helper()
	lo, hi := Wilson(w, n, float64(z)/1000)
	l, u := Bounds(w, n, z)
	const eps = 1e-6 // float error of the closed form, in ppm
	if float64(l) > lo*PPM+eps || float64(l)+1 < lo*PPM-eps {
		t.Fatalf("Bounds(%d, %d, %d) lower %d, closed form %.6f ppm", w, n, z, l, lo*PPM)
	}
	if float64(u) < hi*PPM-eps || float64(u)-1 > hi*PPM+eps {
		t.Fatalf("Bounds(%d, %d, %d) upper %d, closed form %.6f ppm", w, n, z, u, hi*PPM)
	}
}

// LowerExceeds and UpperBelow are the decisions "lower > ratio" and "upper
// < ratio" without the bisection; they must agree everywhere, in
// particular at ratios right at the bounds.
func TestFastDecisionsAgreeWithBounds(t *testing.T) {
	t.Parallel()
	check := func(w, n, z, ratio uint32) {
		if ratio == 0 || ratio >= PPM {
			return
		}
		l, u := Bounds(w, n, z)
		if got := LowerExceeds(w, n, z, ratio); got != (l > ratio) {
			t.Fatalf("LowerExceeds(%d, %d, %d, %d) = %v, lower bound %d", w, n, z, ratio, got, l)
		}
		if got := UpperBelow(w, n, z, ratio); got != (u < ratio) {
			t.Fatalf("UpperBelow(%d, %d, %d, %d) = %v, upper bound %d", w, n, z, ratio, got, u)
		}
	}
	for _, z := range []uint32{1, 1960, 3000} {
		for n := uint32(0); n <= 120; n++ {
			for w := uint32(0); w <= n; w++ {
				l, u := Bounds(w, n, z)
				for _, d := range []int64{-2, -1, 0, 1, 2} {
					check(w, n, z, uint32(int64(l)+d))
					check(w, n, z, uint32(int64(u)+d))
				}
				check(w, n, z, 520000)
				if n > 0 {
					check(w, n, z, uint32(uint64(PPM)*uint64(w)/uint64(n)))
				}
			}
		}
	}
	r := rng.New(rng.Derive([32]byte{}, "fast"))
	for range 50000 {
		n := uint32(r.IntRange(0, MaxLookSize))
		check(uint32(r.IntRange(0, int64(n))), n, uint32(r.IntRange(1, MaxZMilli)), uint32(r.IntRange(1, PPM-1)))
	}
}

// At the extremes of the limits the 128-bit arithmetic must not wrap: a
// wrapped product would put bounds on the wrong side of w/n.
func TestBoundsAtLimits(t *testing.T) {
	for _, c := range []struct{ w, n uint32 }{{0, MaxLookSize}, {MaxLookSize, MaxLookSize}, {MaxLookSize / 2, MaxLookSize}, {1, MaxLookSize}} {
		l, u := Bounds(c.w, c.n, MaxZMilli)
		p := uint64(PPM) * uint64(c.w) / uint64(c.n)
		if uint64(l) > p || uint64(u) < p || l > u {
			t.Errorf("Bounds(%d, %d, %d) = [%d, %d] does not bracket %d", c.w, c.n, MaxZMilli, l, u, p)
		}
		checkClosedForm(t, c.w, c.n, MaxZMilli)
	}
}
