package yuma

import (
	"math"
	"testing"
)

// Ports of subtensor pallets/subtensor/src/tests/math.rs (commit 14bc6f9f):
// each test names the Rust test whose numbers it copies. Where the Rust
// test compares within an epsilon, so does the port; elsewhere it is exact.

func TestFixedArithmetic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		got, want  Fixed
		wantBitsEq bool
	}{
		{"1.5*2", satMul(fromF64(1.5), fromF64(2)), fromF64(3), true},
		{"-1.5*2", satMul(fromF64(-1.5), fromF64(2)), fromF64(-3), true},
		// floor, not truncation: -2^-32 * 0.5 rounds down to -2^-32
		{"neg floor", satMul(-1, One/2), -1, true},
		{"pos floor", satMul(1, One/2), 0, true},
		{"sat max", satMul(math.MaxInt64, fromF64(2)), math.MaxInt64, true},
		{"sat min", satMul(math.MaxInt64, fromF64(-2)), math.MinInt64, true},
		{"min*1", satMul(math.MinInt64, One), math.MinInt64, true},
		{"1/3", safeDiv(One, fromF64(3)), 1431655765, true},
		{"-1/3 truncates", safeDiv(-One, fromF64(3)), -1431655765, true},
		{"div0", safeDiv(One, 0), 0, true},
		{"div overflow", safeDiv(math.MaxInt64, One/2), 0, true},
		{"round 2.5", fromF64(2.5).round(), fromF64(3), true},
		{"round -2.5", fromF64(-2.5).round(), fromF64(-3), true},
		{"round 2.4", fromF64(2.4).round(), fromF64(2), true},
		{"sat add", satAdd(math.MaxInt64, 1), math.MaxInt64, true},
		{"sat sub", satSub(math.MinInt64, 1), math.MinInt64, true},
		// test_math_fixed_overflow: alpha = 1 - 900000/1e6 through I64F64.
		{"alpha 0.1", emaAlpha(900_000), fromF64(0.1), true},
		{"alpha 0", emaAlpha(1_000_000), 0, true},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, int64(c.got), int64(c.want))
		}
	}
}

// test_math_u64_normalization: u64 stake as a share of 21M TAO, through
// I64F64 and truncated to I32F32.
func TestStakeShareSubtensorCases(t *testing.T) {
	t.Parallel()
	const total = 21_000_000_000_000_000
	for _, c := range []struct {
		s    uint64
		want Fixed
	}{
		{1, 0},
		{4_889_444, fromF64(0.0000000002)},
		{10_500_000_000_000_000, fromF64(0.5)},
		{total, One},
	} {
		if got := Fixed(mulDiv32(c.s, total)); got != c.want {
			t.Errorf("%d/21e15 = %d, want %d", c.s, got, c.want)
		}
	}
}

// test_fixed_proportion_to_u16, test_math_fixed_to_u16 and the rounding
// subtensor's storage relies on (floor, clamped).
func TestUint16(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x    Fixed
		want uint16
	}{
		{One / 2, 32767},
		{One, 65535},
		{2 * One, 65535},
		{-One, 0},
		{0, 0},
		{ratioU16(12345), 12344}, // v/65535*65535 floors one below
		{safeDiv(FromUint16(12345), FromUint16(65535)) + 1, 12345},
	} {
		if got := c.x.Uint16(); got != c.want {
			t.Errorf("Uint16(%v) = %d, want %d", c.x, got, c.want)
		}
	}
	for _, v := range []uint16{0, 32767, 65535} {
		if got := FromUint16(v).toUint16(); got != v {
			t.Errorf("fixed_to_u16(%d) = %d", v, got)
		}
	}
}

func TestTopKSubtensorCases(t *testing.T) {
	t.Parallel()
	// test_math_is_topk
	asc := fixeds(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	F, T := false, true
	cases := []struct {
		v    []Fixed
		k    int
		want []bool
	}{
		{nil, 5, []bool{}},
		{asc, 0, []bool{F, F, F, F, F, F, F, F, F, F}},
		{asc, 5, []bool{F, F, F, F, F, T, T, T, T, T}},
		{asc, 10, []bool{T, T, T, T, T, T, T, T, T, T}},
		{asc, 100, []bool{T, T, T, T, T, T, T, T, T, T}},
		{fixeds(9, 8, 7, 6, 5, 4, 3, 2, 1, 0), 5, []bool{T, T, T, T, T, F, F, F, F, F}},
		{fixeds(9, 0, 8, 1, 7, 2, 6, 3, 5, 4), 5, []bool{T, F, T, F, T, F, T, F, T, F}},
		{fixeds(0.9, 0, 0.8, 0.1, 0.7, 0.2, 0.6, 0.3, 0.5, 0.4), 5, []bool{T, F, T, F, T, F, T, F, T, F}},
		{fixeds(0, 1, 2, 3, 4, 5, 5, 5, 5, 6), 5, []bool{F, F, F, F, F, T, T, T, T, T}},
	}
	for k, c := range cases {
		got := topK(c.v, c.k)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("case %d: topK = %v, want %v", k, got, c.want)
				break
			}
		}
	}
	// is_topk_nonzero: zero never holds a permit, even when k covers it.
	if got := topKNonzero(fixeds(0, 1, 2), 10); got[0] || !got[1] || !got[2] {
		t.Errorf("topKNonzero = %v", got)
	}
}

func TestNormalizeSubtensorCases(t *testing.T) {
	t.Parallel()
	eps := fromF64(0.0001)
	// test_math_inplace_normalize
	x := []Fixed{fromF64(1), fromF64(10), fromF64(30)}
	normalize(x)
	assertVec(t, "normalize", x, []Fixed{fromF64(0.0243902437), fromF64(0.243902439), fromF64(0.7317073171)}, eps)
	x = []Fixed{fromF64(-1), fromF64(10), fromF64(30)}
	normalize(x)
	assertVec(t, "normalize neg", x, []Fixed{fromF64(-0.0256410255), fromF64(0.2564102563), fromF64(0.769230769)}, eps)

	// test_math_inplace_row_normalize
	v := []float32{0, 1, 2, 3, 4, 0, 10, 100, 1000, 10000, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	want := []float32{0, 0.1, 0.2, 0.3, 0.4, 0, 0.0009, 0.009, 0.09, 0.9, 0, 0, 0, 0, 0, 0.2, 0.2, 0.2, 0.2, 0.2}
	m := mat(v, 4, false)
	normalizeRows(m)
	assertMat(t, "row normalize", m, mat(want, 4, false), eps)

	// test_math_inplace_col_normalize
	m = mat(v, 4, true)
	normalizeCols(m, 4)
	assertMat(t, "col normalize", m, mat(want, 4, true), eps)

	// test_math_inplace_row_normalize_sparse / col_normalize_sparse
	vs := []float32{0, 1, 0, 2, 0, 3, 4, 0, 1, 0, 2, 0, 3, 0, 1, 0, 0, 2, 0, 3, 4, 0,
		10, 0, 100, 1000, 0, 10000, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}
	ws := []float32{0, 0.1, 0, 0.2, 0, 0.3, 0.4, 0, 0.166666, 0, 0.333333, 0, 0.5, 0, 0.1, 0, 0, 0.2,
		0, 0.3, 0.4, 0, 0.0009, 0, 0.009, 0.09, 0, 0.9, 0, 0, 0, 0, 0, 0, 0, 0.142857,
		0.142857, 0.142857, 0.142857, 0.142857, 0.142857, 0.142857}
	m = mat(vs, 6, false)
	normalizeRows(m)
	assertMat(t, "row normalize sparse", m, mat(ws, 6, false), eps)
	m = mat(vs, 6, true)
	normalizeCols(m, 6)
	assertMat(t, "col normalize sparse", m, mat(ws, 6, true), eps)
	m = mat(make([]float32, 12), 3, false)
	normalizeCols(m, 4)
	assertMat(t, "col normalize zero", m, mat(make([]float32, 12), 3, false), 0)

	// test_math_inplace_col_max_upscale(_sparse)
	m = mat(v, 4, true)
	maxUpscaleCols(m, 4)
	assertMat(t, "col max upscale", m, mat([]float32{0, 0.25, 0.5, 0.75, 1, 0, 0.001, 0.01, 0.1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, 4, true), eps)
	m = mat(vs, 6, true)
	maxUpscaleCols(m, 6)
	assertMat(t, "col max upscale sparse", m, mat([]float32{0, 0.25, 0, 0.5, 0, 0.75, 1, 0, 0.333333, 0, 0.666666, 0, 1, 0, 0.25, 0, 0, 0.5,
		0, 0.75, 1, 0, 0.001, 0, 0.01, 0.1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
		1, 1, 1}, 6, true), eps)
}

func TestMatrixOpsSubtensorCases(t *testing.T) {
	t.Parallel()
	m12 := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	z12 := []float32{0, 2, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12}

	// test_math_row_hadamard(_sparse)
	v4 := fixeds(1, 2, 3, 4)
	assertMat(t, "row_hadamard", rowHadamard(mat(m12, 4, false), v4), mat([]float32{1, 2, 3, 8, 10, 12, 21, 24, 27, 40, 44, 48}, 4, false), 0)
	assertMat(t, "row_hadamard sparse", rowHadamard(mat(z12, 4, false), v4), mat([]float32{0, 2, 3, 8, 0, 12, 21, 24, 0, 40, 44, 48}, 4, false), 0)

	// test_math_row_sum(_sparse)
	assertVec(t, "row_sum", rowSums(mat(m12, 4, false)), fixeds(6, 15, 24, 33), 0)
	assertVec(t, "row_sum sparse", rowSums(mat(z12, 4, false)), fixeds(5, 10, 15, 33), 0)
	assertVec(t, "row_sum sparse 2", rowSums(mat([]float32{1, 2, 3, 0, 0, 0, 7, 8, 9, 10, 11, 12}, 4, false)), fixeds(6, 0, 24, 33), 0)

	// test_math_matmul, test_math_sparse_matmul
	assertVec(t, "matmul", matmul(mat(m12, 4, false), v4, 3), fixeds(70, 80, 90), 0)
	assertVec(t, "matmul sparse", matmul(mat(z12, 4, false), v4, 3), fixeds(69, 70, 63), 0)
	assertVec(t, "matmul zero", matmul(mat(make([]float32, 12), 4, false), v4, 3), fixeds(0, 0, 0), 0)

	// test_math_matmul_transpose, test_math_sparse_matmul_transpose
	v3 := fixeds(1, 2, 3)
	assertVec(t, "matmul_transpose", matmulTranspose(mat(m12, 4, false), v3), fixeds(14, 32, 50, 68), 0)
	assertVec(t, "matmul_transpose sparse", matmulTranspose(mat(z12, 4, false), v3), fixeds(13, 22, 23, 68), 0)

	// test_math_matmul2 (signs; epsilon 0.0001 in Rust, exact here)
	ones := matrix{fixeds(-1, -1, -1), fixeds(-1, -1, -1), fixeds(-1, -1, -1)}
	assertVec(t, "matmul2 neg", matmul(ones, fixeds(-1, -1, -1), 3), fixeds(3, 3, 3), 0)
	assertVec(t, "matmul2 neg2", matmul(ones, fixeds(2, 2, 2), 3), fixeds(-6, -6, -6), 0)
	rows := matrix{fixeds(1, 2, 3), fixeds(1, 2, 3), fixeds(1, 2, 3)}
	assertVec(t, "matmul2 cols", matmul(rows, fixeds(2, 2, 2), 3), fixeds(6, 12, 18), 0)

	// test_math_inplace_col_clip, test_math_col_clip_sparse
	th := fixeds(0, 5, 12)
	assertMat(t, "col_clip", clipCols(mat([]float32{0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4, false), th),
		mat([]float32{0, 2, 3, 0, 5, 6, 0, 5, 9, 0, 5, 12}, 4, false), 0)
	assertMat(t, "col_clip sparse", clipCols(mat([]float32{0, 2, 3, 4, 5, 6, 0, 0, 0, 10, 11, 12}, 4, false), th),
		mat([]float32{0, 2, 3, 0, 5, 6, 0, 0, 0, 0, 5, 12}, 4, false), 0)
	assertMat(t, "col_clip zero", clipCols(mat(make([]float32, 12), 4, false), th), mat(make([]float32, 12), 4, false), 0)
}

// test_math_interpolate (and _sparse, the same numbers).
func TestInterpolateSubtensorCases(t *testing.T) {
	t.Parallel()
	a := mat([]float32{1, 10, 100, 1000, 10000, 100000}, 3, false)
	b := mat([]float32{10, 100, 1000, 10000, 100000, 1000000}, 3, false)
	assertMat(t, "ratio 0", interpolate(a, b, 0, 2), a, 0)
	assertMat(t, "ratio 0.9", interpolate(a, b, fromF64(0.9), 2), mat([]float32{9.1, 91, 910, 9100, 91000, 910000}, 3, false), fromF64(0.0001))
	zero := mat(make([]float32, 12), 4, false)
	one := mat([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 4, false)
	for _, c := range []struct {
		ratio Fixed
		want  float32
	}{
		{0, 0},
		{fromF64(0.000000001), 0.000000001},
		{fromF64(0.5), 0.5},
		{fromF64(0.9999998808), 0.999_999_9},
		{One, 1},
	} {
		want := make([]float32, 12)
		for i := range want {
			want[i] = c.want
		}
		assertMat(t, "interpolate 0..1", interpolate(zero, one, c.ratio, 3), mat(want, 4, false), 0)
	}
}

func TestMaxUpscaleSubtensorCases(t *testing.T) {
	t.Parallel()
	// test_vec_max_upscale_to_u16
	cases := []struct {
		x    []Fixed
		want []uint16
	}{
		{nil, []uint16{}},
		{fixeds(0), []uint16{0}},
		{fixeds(0, 0), []uint16{0, 0}},
		{fixeds(0, 1), []uint16{0, 65535}},
		{fixeds(0, 0.000000001), []uint16{0, 65535}},
		{fixeds(0, 0.000016, 1), []uint16{0, 1, 65535}},
		{fixeds(0.000000001, 0.000000001), []uint16{65535, 65535}},
		{fixeds(0.000001, 0.000006, 0.000007, 0.0001, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4),
			[]uint16{0, 1, 1, 16, 164, 1638, 16384, 32768, 49151, 65535}},
		{[]Fixed{FromUint16(16384)}, []uint16{65535}},
		{[]Fixed{FromUint16(32768)}, []uint16{65535}},
		{[]Fixed{FromUint16(32769)}, []uint16{65535}},
		{[]Fixed{FromUint16(65535)}, []uint16{65535}},
		{[]Fixed{math.MaxInt64}, []uint16{65535}},
		{fixeds(0, 1, 65535), []uint16{0, 1, 65535}},
		{fixeds(0, 0.5, 1, 1.5, 2, 32768), []uint16{0, 1, 2, 3, 4, 65535}},
		{fixeds(0, 0.5, 1, 1.5, 2, 32768, 32769), []uint16{0, 1, 2, 3, 4, 65533, 65535}},
		{[]Fixed{0, One, FromUint16(32768), FromUint16(32769), math.MaxInt64}, []uint16{0, 0, 1, 1, 65535}},
	}
	for k, c := range cases {
		got := maxUpscale(c.x)
		if !equalU16(got, c.want) {
			t.Errorf("vec_max_upscale_to_u16 case %d = %v, want %v", k, got, c.want)
		}
	}
	// test_vec_u16_max_upscale_to_u16
	u16cases := []struct{ in, want []uint16 }{
		{nil, []uint16{}},
		{[]uint16{0}, []uint16{0}},
		{[]uint16{0, 0}, []uint16{0, 0}},
		{[]uint16{1}, []uint16{65535}},
		{[]uint16{0, 1}, []uint16{0, 65535}},
		{[]uint16{65534}, []uint16{65535}},
		{[]uint16{65535}, []uint16{65535}},
		{[]uint16{65535, 65535}, []uint16{65535, 65535}},
		{[]uint16{0, 1, 65534}, []uint16{0, 1, 65535}},
		{[]uint16{0, 1, 2, 3, 4, 65533, 65535}, []uint16{0, 1, 2, 3, 4, 65533, 65535}},
		// set_weights in test_bonds and test_outdated_weights (tests/epoch.rs)
		{[]uint16{16383, 32767, 49149, 65535}, []uint16{16383, 32767, 49149, 65535}},
		{[]uint16{43690, 21845}, []uint16{65535, 32768}},
		{[]uint16{127, 127}, []uint16{65535, 65535}},
	}
	for _, c := range u16cases {
		if got := MaxUpscale(c.in); !equalU16(got, c.want) {
			t.Errorf("MaxUpscale(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func equalU16(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// test_check_vec_max_limited
func TestMaxLimitedSubtensorCases(t *testing.T) {
	t.Parallel()
	M := uint16(math.MaxUint16)
	for _, c := range []struct {
		v     []uint16
		limit uint16
		want  bool
	}{
		{nil, 0, true},
		{nil, M, true},
		{[]uint16{M}, M, true},
		{[]uint16{M}, M - 1, false},
		{[]uint16{M}, 0, false},
		{[]uint16{0}, M, true},
		{[]uint16{0, M}, M, true},
		{[]uint16{0, M, M}, M / 2, false},
		{[]uint16{0, M, M}, M/2 + 1, true},
		{[]uint16{0, M, M, M}, M/3 - 1, false},
		{[]uint16{0, M, M, M}, M / 3, true},
	} {
		if got := MaxLimited(c.v, c.limit); got != c.want {
			t.Errorf("MaxLimited(%v, %d) = %v, want %v", c.v, c.limit, got, c.want)
		}
	}
}
