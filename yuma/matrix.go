package yuma

// A matrix is n rows of n columns indexed by uid. A nil row is an empty row
// (most uids set no weights and hold no bonds), and any other row is dense.
// Subtensor keeps these matrices sparse, but every operation the epoch uses
// maps an absent entry to zero and sums exactly (fixed-point addition is
// integer addition), so dense rows give the same numbers; only the set of
// stored bond entries needs the sparse view, and bonds.go keeps it.
type matrix [][]Fixed

func newMatrix(n int) matrix { return make(matrix, n) }

// row returns row i, allocating it on first use.
func (m matrix) row(i, n int) []Fixed {
	if m[i] == nil {
		m[i] = make([]Fixed, n)
	}
	return m[i]
}

func (m matrix) clone() matrix {
	out := make(matrix, len(m))
	for i, r := range m {
		if r != nil {
			out[i] = append([]Fixed(nil), r...)
		}
	}
	return out
}

// normalize divides x by its sum in place unless the sum is zero
// (inplace_normalize).
func normalize(x []Fixed) {
	s := sum(x)
	if s == 0 {
		return
	}
	for i := range x {
		x[i] = safeDiv(x[i], s)
	}
}

// normalizeRows makes every row with a positive sum sum to one
// (inplace_row_normalize_sparse).
func normalizeRows(m matrix) {
	for _, r := range m {
		if r == nil {
			continue
		}
		if s := sum(r); s > 0 {
			for j := range r {
				r[j] = safeDiv(r[j], s)
			}
		}
	}
}

// normalizeCols makes every column with a non-zero (saturating) sum sum to
// one (inplace_col_normalize_sparse).
func normalizeCols(m matrix, n int) {
	sums := make([]Fixed, n)
	for _, r := range m {
		for j, v := range r {
			sums[j] = satAdd(sums[j], v)
		}
	}
	for _, r := range m {
		for j := range r {
			if sums[j] != 0 {
				r[j] = safeDiv(r[j], sums[j])
			}
		}
	}
}

// maxUpscaleCols divides every column by its maximum, so the largest entry
// becomes one (inplace_col_max_upscale_sparse).
func maxUpscaleCols(m matrix, n int) {
	maxes := make([]Fixed, n)
	for _, r := range m {
		for j, v := range r {
			if maxes[j] < v {
				maxes[j] = v
			}
		}
	}
	for _, r := range m {
		for j := range r {
			if maxes[j] != 0 {
				r[j] = safeDiv(r[j], maxes[j])
			}
		}
	}
}

// rowSums returns each row's sum (row_sum_sparse).
func rowSums(m matrix) []Fixed {
	out := make([]Fixed, len(m))
	for i, r := range m {
		out[i] = sum(r)
	}
	return out
}

// matmul returns r_j = sum_i v_i * m_ij, saturating (matmul_sparse).
func matmul(m matrix, v []Fixed, n int) []Fixed {
	out := make([]Fixed, n)
	for i, r := range m {
		if r == nil {
			continue
		}
		s := v[i]
		for j, x := range r {
			out[j] = satAdd(out[j], satMul(s, x))
		}
	}
	return out
}

// matmulTranspose returns r_i = sum_j v_j * m_ij, saturating
// (matmul_transpose_sparse).
func matmulTranspose(m matrix, v []Fixed) []Fixed {
	out := make([]Fixed, len(m))
	for i, r := range m {
		var acc Fixed
		for j, x := range r {
			acc = satAdd(acc, satMul(v[j], x))
		}
		out[i] = acc
	}
	return out
}

// rowHadamard returns m_ij * v_i (row_hadamard_sparse).
func rowHadamard(m matrix, v []Fixed) matrix {
	out := make(matrix, len(m))
	for i, r := range m {
		if r == nil {
			continue
		}
		o := make([]Fixed, len(r))
		for j, x := range r {
			o[j] = satMul(x, v[i])
		}
		out[i] = o
	}
	return out
}

// clipCols returns min(m_ij, c_j), where a non-positive threshold removes
// the entry (col_clip_sparse).
func clipCols(m matrix, c []Fixed) matrix {
	out := make(matrix, len(m))
	for i, r := range m {
		if r == nil {
			continue
		}
		o := make([]Fixed, len(r))
		for j, x := range r {
			switch {
			case c[j] >= x:
				o[j] = x
			case c[j] > 0:
				o[j] = c[j]
			}
		}
		out[i] = o
	}
	return out
}

// interpolate returns a + ratio*(b - a) entry by entry, keeping positive
// results only (interpolate_sparse); ratio 0 and 1 return a and b as they are.
func interpolate(a, b matrix, ratio Fixed, n int) matrix {
	switch ratio {
	case 0:
		return a
	case One:
		return b
	}
	out := make(matrix, len(a))
	for i := range a {
		if a[i] == nil && b[i] == nil {
			continue
		}
		o := make([]Fixed, n)
		for j := range o {
			var x, y Fixed
			if a[i] != nil {
				x = a[i][j]
			}
			if b[i] != nil {
				y = b[i][j]
			}
			if v := satAdd(x, satMul(ratio, satSub(y, x))); v > 0 {
				o[j] = v
			}
		}
		out[i] = o
	}
	return out
}

// ema returns alpha*next + (1-alpha)*prev entry by entry, keeping positive
// results only (mat_ema_sparse). present reports which entries subtensor's
// sparse result holds: exactly the positive ones.
func ema(next, prev matrix, alpha Fixed, n int) (out matrix, present [][]bool) {
	keep := satSub(One, alpha)
	out = make(matrix, len(next))
	present = make([][]bool, len(next))
	for i := range next {
		if next[i] == nil && prev[i] == nil {
			continue
		}
		o := make([]Fixed, n)
		p := make([]bool, n)
		for j := range o {
			var acc Fixed
			if next[i] != nil {
				acc = satAdd(acc, satMul(alpha, next[i][j]))
			}
			if prev[i] != nil {
				acc = satAdd(acc, satMul(keep, prev[i][j]))
			}
			if acc > 0 {
				o[j], p[j] = acc, true
			}
		}
		out[i], present[i] = o, p
	}
	return out, present
}
