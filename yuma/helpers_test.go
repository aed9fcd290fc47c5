package yuma

import (
	"math"
	"testing"
)

// fromF64 is substrate_fixed's I32F32::from_num on a float: to the nearest
// representable value, ties to even, saturating. Subtensor's tests write
// their fixtures as f32/f64 literals, so their ports must convert the same
// way to compare bit for bit.
func fromF64(x float64) Fixed {
	v := math.RoundToEven(x * (1 << 32))
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return Fixed(int64(v))
}

// fixeds is subtensor's test helper vec_to_fixed: f32 literals to I32F32.
func fixeds(xs ...float32) []Fixed {
	out := make([]Fixed, len(xs))
	for i, x := range xs {
		out[i] = fromF64(float64(x))
	}
	return out
}

// mat is vec_to_mat_fixed: a row-major f32 list cut into rows (or, with
// transpose, read column by column), every row dense.
func mat(vals []float32, rows int, transpose bool) matrix {
	cols := len(vals) / rows
	if transpose {
		out := make(matrix, cols)
		for c := range cols {
			out[c] = make([]Fixed, rows)
			for r := range rows {
				out[c][r] = fromF64(float64(vals[r*cols+c]))
			}
		}
		return out
	}
	out := make(matrix, rows)
	for r := range rows {
		out[r] = fixeds(vals[r*cols : (r+1)*cols]...)
	}
	return out
}

func width(m matrix) int {
	for _, r := range m {
		if r != nil {
			return len(r)
		}
	}
	return 0
}

func assertVec(t *testing.T, what string, got, want []Fixed, eps Fixed) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := got[i] - want[i]; d > eps || -d > eps {
			t.Errorf("%s[%d] = %v (%d), want %v (%d)", what, i, got[i], int64(got[i]), want[i], int64(want[i]))
		}
	}
}

func assertMat(t *testing.T, what string, got, want matrix, eps Fixed) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g == nil {
			g = make([]Fixed, len(w))
		}
		if w == nil {
			w = make([]Fixed, len(g))
		}
		assertVec(t, what, g, w, eps)
	}
}
