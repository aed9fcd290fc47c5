package yuma

import (
	"math"
	"math/bits"
	"strconv"
)

// Fixed is subtensor's I32F32 (substrate_fixed): a signed 64-bit number with
// 32 fractional bits, held as its raw bits. The epoch does all its arithmetic
// in this type, and the rounding of every operation below is the one
// substrate_fixed v0.6.0 performs, because a single low bit of difference
// can move a stored u16 (spec/yuma.md, Fixed point).
type Fixed int64

// One is 1.0 as a Fixed.
const One Fixed = 1 << 32

// FromUint16 returns v as a Fixed integer (subtensor's u16_to_fixed).
func FromUint16(v uint16) Fixed { return Fixed(int64(v) << 32) }

// Float64 returns x as a float64, for display and tests; the epoch never
// uses floats.
func (x Fixed) Float64() float64 { return float64(x) / (1 << 32) }

// String prints x with ten decimals, enough to compare with subtensor's debug logs.
func (x Fixed) String() string { return strconv.FormatFloat(x.Float64(), 'f', 10, 64) }

// satAdd is saturating_add.
func satAdd(a, b Fixed) Fixed {
	s := a + b
	if (s > a) != (b > 0) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// satSub is saturating_sub.
func satSub(a, b Fixed) Fixed {
	d := a - b
	if (d < a) != (b > 0) {
		if b > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}

func abs64(a Fixed) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1 // also right for MinInt64
	}
	return uint64(a)
}

// mulFull returns floor(a*b / 2^32) and whether it fits in 64 bits.
// substrate_fixed widens to i128 with the right operand shifted up by the
// 32 integer bits and keeps the top 64 bits: an arithmetic shift, so the
// product rounds toward minus infinity.
func mulFull(a, b Fixed) (Fixed, bool) {
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	q := hi<<32 | lo>>32 // floor(|a*b| / 2^32), valid when hi < 2^32
	if (a < 0) == (b < 0) || a == 0 || b == 0 {
		if hi>>31 != 0 {
			return 0, false
		}
		return Fixed(q), true
	}
	if lo&(1<<32-1) != 0 { // floor of a negative value: round the magnitude up
		q++
		if q == 0 {
			return 0, false
		}
	}
	if hi>>32 != 0 || q > 1<<63 {
		return 0, false
	}
	return Fixed(-int64(q-1) - 1), true
}

// satMul is saturating_mul: on overflow the result is the bound of the
// product's sign.
func satMul(a, b Fixed) Fixed {
	p, ok := mulFull(a, b)
	if ok {
		return p
	}
	if (a < 0) != (b < 0) {
		return math.MinInt64
	}
	return math.MaxInt64
}

// checkedMul is checked_mul(..).unwrap_or_default(): zero on overflow.
func checkedMul(a, b Fixed) Fixed {
	p, _ := mulFull(a, b)
	return p
}

// safeDiv is subtensor's safe_div on I32F32: checked_div, or zero when the
// divisor is zero or the quotient overflows. The quotient is (a << 32) / b
// in i128, which truncates toward zero.
func safeDiv(a, b Fixed) Fixed {
	if b == 0 {
		return 0
	}
	ua, ub := abs64(a), abs64(b)
	hi, lo := ua>>32, ua<<32
	if hi >= ub {
		return 0
	}
	q, _ := bits.Div64(hi, lo, ub)
	if (a < 0) != (b < 0) {
		if q > 1<<63 {
			return 0
		}
		return Fixed(-int64(q-1) - 1)
	}
	if q > math.MaxInt64 {
		return 0
	}
	return Fixed(q)
}

// sum is Rust's iter().sum() on I32F32, which the runtime evaluates with
// wrapping adds; the epoch's sums are bounded far below overflow.
func sum(x []Fixed) Fixed {
	var s Fixed
	for _, v := range x {
		s += v
	}
	return s
}

// toUint16 is saturating_to_num::<u16>(): the integer part (a floor), clamped.
func (x Fixed) toUint16() uint16 {
	i := int64(x) >> 32
	switch {
	case i < 0:
		return 0
	case i > math.MaxUint16:
		return math.MaxUint16
	}
	return uint16(i)
}

// Uint16 is subtensor's fixed_proportion_to_u16: floor(x * 65535), clamped to
// [0, 65535]. It is how consensus, trust, incentive, dividends and bonds
// reach storage.
func (x Fixed) Uint16() uint16 { return satMul(x, FromUint16(math.MaxUint16)).toUint16() }

// round is Fixed::round(): to the nearest integer, ties away from zero.
func (x Fixed) round() Fixed {
	i := x &^ (One - 1) // floor
	if x&(1<<31) == 0 {
		return i
	}
	if x&(One-1) == 1<<31 && x < 0 {
		return i
	}
	return i + One
}

// ratioU16 is v / 65535 in I32F32 (subtensor's get_float_kappa and
// get_float_bonds_penalty, and u16_proportion_to_fixed).
func ratioU16(v uint16) Fixed { return safeDiv(FromUint16(v), FromUint16(math.MaxUint16)) }

// scaleU64 returns floor(x * e) as a u64, the I96F32 product subtensor uses to
// turn a normalized emission share into rao (negative shares give zero).
func scaleU64(x Fixed, e uint64) uint64 {
	if x <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(x), e)
	if hi>>32 != 0 {
		return math.MaxUint64
	}
	return hi<<32 | lo>>32
}

// mulDiv32 returns floor(s * 2^32 / total) for s <= total, total > 0: an
// integer stake as a share of the total, in I32F32 bits.
func mulDiv32(s, total uint64) uint64 {
	q, _ := bits.Div64(s>>32, s<<32, total)
	return q
}
