package yuma

import "math"

// MaxUpscale scales weight values so that the largest becomes 65535, as
// subtensor does to the values of every set_weights call before storing
// them (vec_u16_max_upscale_to_u16). All-zero and empty inputs come back
// unchanged. A local chain that stores MaxUpscale(values) holds exactly
// the weights subtensor would hold.
func MaxUpscale(values []uint16) []uint16 {
	f := make([]Fixed, len(values))
	for i, v := range values {
		f[i] = FromUint16(v)
	}
	return maxUpscale(f)
}

// maxUpscale is vec_max_upscale_to_u16 on I32F32 input, including its two
// rounding paths: above 32768 it multiplies by 65535/max (so the product
// cannot overflow), below it divides 65535*x by max.
func maxUpscale(x []Fixed) []uint16 {
	out := make([]uint16, len(x))
	if len(x) == 0 {
		return out
	}
	top := x[0]
	for _, v := range x[1:] {
		top = max(top, v)
	}
	u16max := FromUint16(math.MaxUint16)
	for i, v := range x {
		switch {
		case top == 0:
			out[i] = satMul(v, u16max).toUint16()
		case top > FromUint16(32768):
			out[i] = satMul(v, safeDiv(u16max, top)).round().toUint16()
		default:
			out[i] = safeDiv(satMul(v, u16max), top).round().toUint16()
		}
	}
	return out
}

// MaxLimited reports whether the largest of values, as a share of their
// sum, is at most limit/65535: subtensor's check of the max weight limit on
// set_weights (check_vec_max_limited). A limit of 65535 admits everything.
func MaxLimited(values []uint16, limit uint16) bool {
	f := make([]Fixed, len(values))
	for i, v := range values {
		f[i] = FromUint16(v)
	}
	normalize(f)
	lim := ratioU16(limit)
	for _, v := range f {
		if v > lim {
			return false
		}
	}
	return true
}
