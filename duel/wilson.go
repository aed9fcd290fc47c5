package duel

import (
	"math"
	"math/bits"
)

// PPM is one in parts per million: rates, bounds and ratios are integers in
// [0, PPM].
const PPM = 1_000_000

// Wilson returns the Wilson score interval for k successes in n trials at
// z, in the closed form of Wilson (1927):
//
//	centre = (p + z²/2n) / (1 + z²/n),  half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)
//
// It is for display and for checking Bounds; decisions never use it. n = 0
// gives [0, 1].
func Wilson(k, n uint32, z float64) (lower, upper float64) {
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Bounds returns the Wilson score interval for w wins in n decisive
// outcomes at z = zMilli/1000, in parts per million and rounded outward:
// lower = floor(10⁶·L) and upper = ceil(10⁶·U) for the exact real bounds L
// and U. It uses integers only, so every implementation gets the same
// numbers. n = 0 gives [0, PPM]. Callers keep w <= n, n < 2^20 and
// zMilli <= MaxZMilli (Rule.Validate enforces them).
//
// The interval is the set of q with (w - nq)² <= z²·n·q(1-q) (the score
// test Wilson inverted). With q = x/10⁶ and z² = zMilli²/10⁶ that reads
//
//	10⁶·(10⁶·w - n·x)² <= zMilli²·n·x·(10⁶ - x)
//
// so lower is the largest x < 10⁶·w/n at which the left side is at least
// the right side (0 if w = 0), and upper the smallest x > 10⁶·w/n (PPM if
// w = n); both are found by bisection.
func Bounds(w, n, zMilli uint32) (lower, upper uint32) {
	if n == 0 {
		return 0, PPM
	}
	// L < w/n < U unless w is 0 or n, so the searches run over x strictly
	// below w/n (the predicate holds on [0, lower] and fails above it) and
	// strictly above it (fails up to upper, holds from upper on). At w/n
	// itself the predicate holds only when w is 0 or n, which is why that
	// point is excluded.
	scaled := uint64(PPM) * uint64(w)
	if w > 0 {
		lo, hi := uint64(0), (scaled+uint64(n)-1)/uint64(n)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if outside(w, n, zMilli, mid) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		lower = uint32(lo)
	}
	upper = PPM
	if w < n {
		lo, hi := scaled/uint64(n)+1, uint64(PPM)
		for lo < hi {
			mid := (lo + hi) / 2
			if outside(w, n, zMilli, mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		upper = uint32(lo)
	}
	return lower, upper
}

// LowerExceeds reports whether Bounds(w, n, zMilli) has lower > ratio,
// with one evaluation instead of a bisection: lower > ratio iff
// 10⁶·L >= ratio+1, iff x = ratio+1 lies strictly below w/n and outside (or
// on the edge of) the interval.
func LowerExceeds(w, n, zMilli, ratio uint32) bool {
	if n == 0 || ratio >= PPM {
		return false
	}
	x := uint64(ratio) + 1
	return x*uint64(n) < uint64(PPM)*uint64(w) && outside(w, n, zMilli, x)
}

// UpperBelow reports whether Bounds(w, n, zMilli) has upper < ratio:
// upper < ratio iff 10⁶·U <= ratio-1, iff x = ratio-1 lies strictly above
// w/n and outside (or on the edge of) the interval.
func UpperBelow(w, n, zMilli, ratio uint32) bool {
	if n == 0 || ratio == 0 {
		return false
	}
	x := uint64(ratio) - 1
	return x*uint64(n) > uint64(PPM)*uint64(w) && outside(w, n, zMilli, x)
}

// outside evaluates 10⁶·(10⁶·w - n·x)² >= zMilli²·n·x·(10⁶ - x) in 128-bit
// arithmetic: true when x/10⁶ is outside the closed interval or on its
// edge. With n < 2^20 and zMilli <= 10⁴ the left side is below 2^102 and
// the right below 2^89.
func outside(w, n, zMilli uint32, x uint64) bool {
	a, b := uint64(PPM)*uint64(w), uint64(n)*x
	d := a - b
	if b > a {
		d = b - a
	}
	lh, ll := bits.Mul64(d, d)
	lh, ll = mul128(lh, ll, PPM)
	rh, rl := bits.Mul64(uint64(zMilli)*uint64(zMilli)*uint64(n), x*(PPM-x))
	return lh > rh || (lh == rh && ll >= rl)
}

// mul128 multiplies the 128-bit hi:lo by m; the caller guarantees the
// product fits.
func mul128(hi, lo, m uint64) (uint64, uint64) {
	ch, cl := bits.Mul64(lo, m)
	return hi*m + ch, cl
}
