package yuma_test

import (
	"fmt"

	"github.com/affine-ledger/ledger/yuma"
)

// Validators 0 and 1 (75% of the stake) weight miners 3 and 4 at 3:1;
// validator 2 puts everything on miner 4. Consensus on miner 4 is 0.25, so
// validator 2's weight is clipped to a quarter: its vtrust.
func ExampleEpoch() {
	weights := func(m3, m4 uint16) []yuma.Entry {
		up := yuma.MaxUpscale([]uint16{m3, m4}) // what set_weights stores
		return []yuma.Entry{{UID: 3, Value: up[0]}, {UID: 4, Value: up[1]}}
	}
	in := yuma.Input{
		Stake:               []uint64{400, 350, 250, 0, 0},
		ValidatorPermit:     []bool{true, true, true, false, false},
		LastUpdate:          []uint64{99, 99, 99, 0, 0},
		BlockAtRegistration: []uint64{0, 0, 0, 0, 0},
		Weights:             [][]yuma.Entry{weights(3, 1), weights(3, 1), weights(0, 1)},
		CurrentBlock:        100,
		LastTempo:           1,
		Emission:            1_000_000_000,
		Params:              yuma.DefaultParams(),
	}
	out, err := yuma.Epoch(in)
	if err != nil {
		panic(err)
	}
	fmt.Println("vtrust:   ", out.ValidatorTrust)
	fmt.Println("incentive:", out.Incentive)
	fmt.Println("dividends:", out.Dividends)
	fmt.Println("emission: ", out.Emission)
	// Output:
	// vtrust:    [65535 65535 16383 0 0]
	// incentive: [0 0 0 45370 20164]
	// dividends: [32263 28230 5041 0 0]
	// emission:  [246153845 215384615 38461538 346153846 153846153]
}
