package yuma

import "slices"

// emission splits the epoch's rao: incentive and dividends are normalized
// together, so miners and validators get half each when both are non-zero.
// With neither (no usable weights), validators get it by stake.
func emission(incentive, dividends, stake, activeStake []Fixed, rao uint64) (combined, server, validator []uint64) {
	n := len(incentive)
	comb := make([]Fixed, n)
	for i := range comb {
		comb[i] = satAdd(incentive[i], dividends[i])
	}
	total := sum(comb)
	srv, val := slices.Clone(incentive), slices.Clone(dividends)
	if total != 0 {
		for i := range srv {
			srv[i] = safeDiv(srv[i], total)
			val[i] = safeDiv(val[i], total)
		}
	}
	normalize(comb)
	if total == 0 {
		fallback := activeStake
		if sum(activeStake) == 0 {
			fallback = stake
		}
		val, comb = slices.Clone(fallback), slices.Clone(fallback)
	}
	combined, server, validator = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for i := range n {
		combined[i] = scaleU64(comb[i], rao)
		server[i] = scaleU64(srv[i], rao)
		validator[i] = scaleU64(val[i], rao)
	}
	return combined, server, validator
}
