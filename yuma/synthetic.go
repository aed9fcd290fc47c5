package yuma

import (
	"math"

	"github.com/affine-ledger/ledger/rng"
)

// Synthetic returns a deterministic subnet state for benchmarks and tests:
// uids 0..validators-1 are staked validators (holding permits) that weight
// every miner, uids validators.. are unstaked miners. Each miner has a
// hidden quality and each validator reports it with its own noise, so
// consensus clips the noisy reports. The bonds are those of one epoch run
// on the same weights, so an Epoch on the result is in its steady state.
// Other packages use it to benchmark an epoch together with their own work.
func Synthetic(validators, miners int, seed [32]byte) Input {
	r := rng.New(seed)
	n := validators + miners
	in := Input{
		Stake:               make([]uint64, n),
		ValidatorPermit:     make([]bool, n),
		LastUpdate:          make([]uint64, n),
		BlockAtRegistration: make([]uint64, n),
		Weights:             make([][]Entry, n),
		CurrentBlock:        10_000,
		LastTempo:           10_000 - 360,
		Emission:            1_000_000_000,
		Params:              DefaultParams(),
	}
	in.Params.MaxAllowedValidators = uint16(min(validators, math.MaxUint16))
	quality := make([]uint64, miners)
	for j := range quality {
		quality[j] = r.Uniform(1000)
	}
	for i := range validators {
		in.Stake[i] = uint64(r.IntRange(1_000_000_000_000, 1_000_000_000_000_000))
		in.ValidatorPermit[i] = true
		in.LastUpdate[i] = in.CurrentBlock - r.Uniform(300)
		noise := r.Uniform(500) // some validators are much noisier than others
		uids := make([]uint16, miners)
		values := make([]uint16, miners)
		for j := range miners {
			uids[j] = uint16(validators + j)
			values[j] = uint16(quality[j] + r.Uniform(noise+1))
		}
		up := MaxUpscale(values)
		row := make([]Entry, miners)
		for j := range row {
			row[j] = Entry{uids[j], up[j]}
		}
		in.Weights[i] = row
	}
	for j := validators; j < n; j++ {
		in.BlockAtRegistration[j] = r.Uniform(5000)
		in.LastUpdate[j] = in.BlockAtRegistration[j]
	}
	if out, err := Epoch(in); err == nil {
		in.Bonds = out.Bonds
		in.ValidatorPermit = out.ValidatorPermit
	}
	return in
}
