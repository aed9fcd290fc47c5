package local

import (
	"github.com/affine-ledger/ledger/yuma"
)

// DefaultConsensus is the consensus a local chain runs when Options leave
// it out: Yuma consensus as subtensor computes it (package yuma), with
// subtensor's default hyperparameters except these, which the local chain
// fixes (spec/chain.md, "Epochs"):
//
//   - permits are the operator's (genesis or Register), not the top
//     stakes: the output permits are ignored;
//   - the activity cutoff is max(1, 13889 * tempo / 1000) blocks, the
//     default 13889 per mille of a tempo;
//   - an epoch distributes tempo * 10^9 units (one unit of alpha a block),
//     which only the dividends' proportions reflect;
//   - there is no subnet owner.
//
// This file is the only place the local chain meets package yuma.
var DefaultConsensus Consensus = yumaConsensus

// yumaEmissionPerBlock is the emission of one block in the stake's units.
const yumaEmissionPerBlock = 1_000_000_000

func yumaConsensus(in EpochInput) (EpochOutput, error) {
	p := yuma.DefaultParams()
	p.ActivityCutoff = max(1, 13_889*in.Tempo/1000)
	y := yuma.Input{
		Stake:               in.Stake,
		ValidatorPermit:     in.ValidatorPermit,
		LastUpdate:          in.LastUpdate,
		BlockAtRegistration: in.RegisteredAt,
		Weights:             sparse(in.Weights),
		Bonds:               sparse(in.Bonds),
		CurrentBlock:        in.Block,
		LastTempo:           yuma.LastTempo(in.Block, in.Tempo, in.PrevEpochBlock),
		Emission:            in.Tempo * yumaEmissionPerBlock,
		Params:              p,
	}
	out, err := yuma.Epoch(y)
	if err != nil {
		return EpochOutput{}, err
	}
	return EpochOutput{
		ValidatorTrust: out.ValidatorTrust, Consensus: out.Consensus,
		Incentive: out.Incentive, Dividends: out.Dividends,
		Bonds: dense(out.Bonds, len(in.Stake)),
	}, nil
}

// sparse turns dense rows into yuma's (uid, value) rows, leaving out zeros.
func sparse(rows [][]uint16) [][]yuma.Entry {
	out := make([][]yuma.Entry, len(rows))
	for i, row := range rows {
		for j, v := range row {
			if v != 0 {
				out[i] = append(out[i], yuma.Entry{UID: uint16(j), Value: v})
			}
		}
	}
	return out
}

func dense(rows [][]yuma.Entry, n int) [][]uint16 {
	out := make([][]uint16, n)
	for i := range out {
		out[i] = make([]uint16, n)
		if i < len(rows) {
			for _, e := range rows[i] {
				if int(e.UID) < n {
					out[i][e.UID] = e.Value
				}
			}
		}
	}
	return out
}
