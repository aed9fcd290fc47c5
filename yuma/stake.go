package yuma

import (
	"cmp"
	"slices"
)

// normalizedStake zeroes stake below the threshold (except the owner's) and
// normalizes the rest: in I64F64 and then truncated to I32F32, which
// together floor s*2^32/total.
func normalizedStake(raw []uint64, threshold uint64, owner int) []Fixed {
	kept := make([]uint64, len(raw))
	var total uint64
	for i, s := range raw {
		if i == owner || s >= threshold {
			kept[i] = s
			total += s
		}
	}
	out := make([]Fixed, len(raw))
	if total == 0 {
		return out
	}
	for i, s := range kept {
		out[i] = Fixed(mulDiv32(s, total))
	}
	return out
}

// topK marks the k largest values; ties go to the higher index, as
// subtensor's stable ascending sort leaves them (is_topk).
func topK(v []Fixed, k int) []bool {
	out := make([]bool, len(v))
	for i := range out {
		out[i] = true
	}
	if len(v) < k {
		return out
	}
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	for _, i := range idx[:len(v)-k] {
		out[i] = false
	}
	return out
}

// topKNonzero is topK restricted to non-zero values (is_topk_nonzero): the
// validator permits.
func topKNonzero(v []Fixed, k int) []bool {
	out := topK(v, k)
	for i, x := range v {
		out[i] = out[i] && x != 0
	}
	return out
}
