package yuma

import "slices"

// Output is what one epoch stores, in subtensor's units: shares as u16
// fractions of 65535 (floored), emission in rao. Rank and Trust are not
// here because subtensor no longer computes them (its getters return 0).
type Output struct {
	// Active: the uid's weights are recent enough (see ActivityCutoff).
	Active []bool `json:"active"`
	// ValidatorPermit holds the new permits: the top MaxAllowedValidators
	// uids by stake among those with non-zero stake, plus the owner.
	ValidatorPermit []bool `json:"validator_permit"`
	// StakeWeight is each uid's share of the stake that counts.
	StakeWeight []uint16 `json:"stake_weight"`
	// Consensus is each uid's stake-weighted median weight received.
	Consensus []uint16 `json:"consensus"`
	// ValidatorTrust is the sum of each validator's weights after clipping
	// at consensus: the share of its weight the majority agrees with.
	ValidatorTrust []uint16 `json:"validator_trust"`
	// Incentive is each uid's share of the miners' emission.
	Incentive []uint16 `json:"incentive"`
	// Dividends is each uid's share of the validators' emission.
	Dividends []uint16 `json:"dividends"`
	// Emission is incentive plus dividends, normalized, times Emission:
	// what subtensor stores as Emission.
	Emission []uint64 `json:"emission"`
	// ServerEmission and ValidatorEmission split Emission into the part
	// earned as a miner and as a validator.
	ServerEmission    []uint64 `json:"server_emission"`
	ValidatorEmission []uint64 `json:"validator_emission"`
	// Bonds are the rows subtensor writes back: a new row for every uid
	// holding a new permit, an empty row for one that lost its permit, and
	// the input row unchanged for the others (subtensor leaves it alone).
	Bonds [][]Entry `json:"bonds"`
	// Fixed holds the same quantities before they were rounded to u16.
	Fixed Terms `json:"fixed"`
}

// Terms are the epoch's I32F32 vectors, for callers who need more than the
// 16 bits subtensor stores (a validator predicting its vtrust, say).
type Terms struct {
	Stake          []Fixed `json:"stake"`
	ActiveStake    []Fixed `json:"active_stake"`
	Consensus      []Fixed `json:"consensus"`
	ValidatorTrust []Fixed `json:"validator_trust"`
	Incentive      []Fixed `json:"incentive"`
	Dividends      []Fixed `json:"dividends"`
}

// Epoch runs one Yuma consensus epoch over in, as subtensor's
// epoch_mechanism does (spec/yuma.md), and returns what subtensor would
// store. It is a pure function: the same input always gives the same
// output, bit for bit. It fails only on input subtensor could not hold.
func Epoch(in Input) (Output, error) {
	n, err := in.validate()
	if err != nil {
		return Output{}, err
	}
	p := in.Params
	owner := p.OwnerUID // NoOwner never equals a uid

	active := make([]bool, n)
	for i, u := range in.LastUpdate {
		active[i] = !(satAddU64(u, p.ActivityCutoff) < in.CurrentBlock)
	}

	stake := normalizedStake(in.Stake, p.StakeThreshold, owner)

	permits := slices.Clone(in.ValidatorPermit)
	newPermits := topKNonzero(stake, int(p.MaxAllowedValidators))
	if owner != NoOwner {
		permits[owner], newPermits[owner] = true, true
	}

	activeStake := slices.Clone(stake)
	for i := range activeStake {
		if !active[i] || !permits[i] {
			activeStake[i] = 0
		}
	}
	normalize(activeStake)

	w, err := loadRows(in.Weights, n, "Weights", FromUint16)
	if err != nil {
		return Output{}, err
	}
	for i, r := range w {
		if r == nil {
			continue
		}
		if !permits[i] {
			w[i] = nil
			continue
		}
		if i != owner {
			r[i] = 0
		}
		for j, reg := range in.BlockAtRegistration {
			if in.LastUpdate[i] <= reg {
				r[j] = 0 // set before uid j's holder registered: meant for someone else
			}
		}
	}
	normalizeRows(w)

	cons := consensus(activeStake, w, n, ratioU16(p.Kappa))
	clipped := clipCols(w, cons)
	vtrust := rowSums(clipped)
	incentive := matmul(clipped, activeStake, n)
	normalize(incentive)

	wfb := interpolate(w, clipped, ratioU16(p.BondsPenalty), n)
	bondsFn := classicBonds
	if p.Yuma3 {
		bondsFn = yuma3Bonds
	}
	b, err := bondsFn(in.Bonds, wfb, activeStake, incentive, &in, n)
	if err != nil {
		return Output{}, err
	}

	out := Output{
		Active:          active,
		ValidatorPermit: newPermits,
		StakeWeight:     toUint16s(stake),
		Consensus:       toUint16s(cons),
		ValidatorTrust:  toUint16s(vtrust),
		Incentive:       toUint16s(incentive),
		Dividends:       toUint16s(b.dividends),
		Bonds:           make([][]Entry, n),
		Fixed: Terms{
			Stake:          stake,
			ActiveStake:    activeStake,
			Consensus:      cons,
			ValidatorTrust: vtrust,
			Incentive:      incentive,
			Dividends:      b.dividends,
		},
	}
	out.Emission, out.ServerEmission, out.ValidatorEmission = emission(incentive, b.dividends, stake, activeStake, in.Emission)
	for i := range n {
		switch {
		case newPermits[i]:
			out.Bonds[i] = storeRow(b.stored[i], b.present[i])
		case permits[i]:
			out.Bonds[i] = []Entry{}
		case i < len(in.Bonds):
			out.Bonds[i] = slices.Clone(in.Bonds[i])
		}
	}
	return out, nil
}

func toUint16s(x []Fixed) []uint16 {
	out := make([]uint16, len(x))
	for i, v := range x {
		out[i] = v.Uint16()
	}
	return out
}

func satAddU64(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}
