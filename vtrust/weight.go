package vtrust

import (
	"fmt"
	"math/big"
	"math/bits"
)

// Weight is an unsigned 128-bit integer: a stake in rao (below 2^64) times
// a ppm factor (at most 10^6 < 2^20), summed over at most 2^16 validators,
// stays below 2^100. Sums of such products decide majorities, so they are
// exact; JSON writes the decimal digits as a string.
type Weight struct{ hi, lo uint64 }

// weightOf returns stake × ppm.
func weightOf(stake uint64, ppm uint32) Weight {
	hi, lo := bits.Mul64(stake, uint64(ppm))
	return Weight{hi, lo}
}

// Add returns w + x. Callers stay far below 2^128 (see Weight).
func (w Weight) Add(x Weight) Weight {
	lo, carry := bits.Add64(w.lo, x.lo, 0)
	hi, _ := bits.Add64(w.hi, x.hi, carry)
	return Weight{hi, lo}
}

// Double returns 2w.
func (w Weight) Double() Weight { return w.Add(w) }

// Cmp returns -1, 0 or +1 as w is less than, equal to or greater than x.
func (w Weight) Cmp(x Weight) int {
	switch {
	case w.hi != x.hi:
		if w.hi < x.hi {
			return -1
		}
		return 1
	case w.lo != x.lo:
		if w.lo < x.lo {
			return -1
		}
		return 1
	}
	return 0
}

// IsZero reports whether w is 0.
func (w Weight) IsZero() bool { return w == Weight{} }

// Big returns w as a big.Int.
func (w Weight) Big() *big.Int {
	b := new(big.Int).SetUint64(w.hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(w.lo))
}

// String returns the decimal digits.
func (w Weight) String() string { return w.Big().String() }

// MarshalText writes the decimal digits (a JSON string, since the values
// exceed what JSON numbers carry exactly).
func (w Weight) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText reads decimal digits below 2^128.
func (w *Weight) UnmarshalText(b []byte) error {
	v, ok := new(big.Int).SetString(string(b), 10)
	if !ok || v.Sign() < 0 || v.BitLen() > 128 {
		return fmt.Errorf("weight %q is not a decimal integer in [0, 2^128)", b)
	}
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0)))
	*w = Weight{hi: new(big.Int).Rsh(v, 64).Uint64(), lo: lo.Uint64()}
	return nil
}

// mulDiv returns floor(a × b / c) for a × b / c < 2^64 and c > 0.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c)
	return q
}
