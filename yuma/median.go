package yuma

// weightedMedian is subtensor's stake-weighted median search (math.rs
// weighted_median), step for step: a binary search whose pivot is the
// middle element of the current partition (not a random one, for
// determinism). Stake is assumed normalized; minority is the stake sum
// minus the majority ratio kappa; [lo, hi] is the stake interval the
// partition covers. The order of idx matters, because the pivot is picked
// by position, so callers pass the rows in uid order as subtensor does.
func weightedMedian(stake, score []Fixed, idx []int, minority, lo, hi Fixed) Fixed {
	if len(stake) != len(score) {
		return 0
	}
	cur := append([]int(nil), idx...)
	var lower, upper []int
	for range len(idx) + 1 {
		n := len(cur)
		if n == 0 {
			return 0
		}
		if n == 1 {
			return score[cur[0]]
		}
		pivot := score[cur[n/2]]
		var loStake, hiStake Fixed
		lower, upper = lower[:0], upper[:0]
		for _, i := range cur {
			switch s := score[i]; {
			case s == pivot:
			case s < pivot:
				loStake = satAdd(loStake, stake[i])
				lower = append(lower, i)
			default:
				hiStake = satAdd(hiStake, stake[i])
				upper = append(upper, i)
			}
		}
		switch {
		case minority < satAdd(lo, loStake) && len(lower) > 0:
			hi = satAdd(lo, loStake)
			cur, lower = lower, cur
		case satSub(hi, hiStake) <= minority && len(upper) > 0:
			lo = satSub(hi, hiStake)
			cur, upper = upper, cur
		default:
			return pivot
		}
	}
	return 0
}

// consensus returns, for every column of w, the stake-weighted median of
// the weights that validators with positive stake set on it: the largest
// weight that at least a kappa share of that stake sets at or above
// (weighted_median_col_sparse). The stakes of those validators are
// renormalized first, with the rounding of inplace_normalize.
func consensus(stake []Fixed, w matrix, n int, kappa Fixed) []Fixed {
	var rows []int
	var use []Fixed
	for i, s := range stake {
		if s > 0 {
			rows = append(rows, i)
			use = append(use, s)
		}
	}
	normalize(use)
	total := sum(use)
	minority := satSub(total, kappa)
	idx := make([]int, len(use))
	for k := range idx {
		idx[k] = k
	}
	out := make([]Fixed, n)
	score := make([]Fixed, len(use))
	for j := range out {
		for k, i := range rows {
			score[k] = 0
			if w[i] != nil {
				score[k] = w[i][j]
			}
		}
		out[j] = weightedMedian(use, score, idx, minority, 0, total)
	}
	return out
}
