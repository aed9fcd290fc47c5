package local

import (
	"fmt"
)

// Consensus computes one epoch's results from the subnet's state. The
// local chain runs it every tempo; the default is Yuma consensus (see
// DefaultConsensus). It must be a pure function of its input.
type Consensus func(in EpochInput) (EpochOutput, error)

// EpochInput is the subnet at the block an epoch runs, by uid (n neurons).
type EpochInput struct {
	// Block is the block the epoch runs at; PrevEpochBlock is the block
	// the previous epoch ran at (0 before the first).
	Block          uint64
	PrevEpochBlock uint64
	Tempo          uint64
	// Stake of each neuron.
	Stake []uint64
	// ValidatorPermit of each neuron, as the operator set it.
	ValidatorPermit []bool
	// LastUpdate is the block each neuron registered at or, if later, last
	// set or committed weights at, as subtensor's LastUpdate;
	// RegisteredAt the block it registered at (0 in the genesis).
	LastUpdate   []uint64
	RegisteredAt []uint64
	// Weights is n×n: row i is the row uid i set (max-normalized u16, as
	// stored), zeros where it set none.
	Weights [][]uint16
	// Bonds is n×n, the previous epoch's bonds (zeros at first), u16
	// fixed point as subtensor stores them.
	Bonds [][]uint16
}

// EpochOutput is what an epoch produces, by uid; every slice has n
// elements (Bonds n×n). Trust-like values are u16 fixed point (65535 =
// 1.0).
type EpochOutput struct {
	ValidatorTrust []uint16
	Consensus      []uint16
	Incentive      []uint16
	Dividends      []uint16
	Bonds          [][]uint16
}

func (s *state) epochInput() EpochInput {
	n := len(s.Neurons)
	in := EpochInput{
		Block: s.Head, PrevEpochBlock: s.EpochBlock, Tempo: s.Genesis.Tempo,
		Stake: make([]uint64, n), ValidatorPermit: make([]bool, n),
		LastUpdate: make([]uint64, n), RegisteredAt: make([]uint64, n),
		Weights: make([][]uint16, n), Bonds: make([][]uint16, n),
	}
	for i, nr := range s.Neurons {
		in.Stake[i] = nr.Stake
		in.ValidatorPermit[i] = nr.Validator
		in.LastUpdate[i] = nr.LastUpdate
		in.RegisteredAt[i] = nr.RegisteredAt
		row := make([]uint16, n)
		if nr.Weights != nil {
			for k, uid := range nr.Weights.UIDs {
				if int(uid) < n {
					row[uid] = nr.Weights.Values[k]
				}
			}
		}
		in.Weights[i] = row
		bonds := make([]uint16, n)
		copy(bonds, nr.Bonds)
		in.Bonds[i] = bonds
	}
	return in
}

// runEpoch advances the epoch counter and stores the consensus results. A
// nil or failing consensus leaves the previous results in place and is
// recorded in EpochError; blocks keep coming either way.
func (s *state) runEpoch(consensus Consensus) {
	in := s.epochInput()
	s.Epoch = s.epochOf(s.Head)
	s.EpochBlock = s.Head
	if consensus == nil {
		s.EpochError = "no consensus function linked in"
		return
	}
	out, err := consensus(in)
	if err == nil {
		err = checkOutput(out, len(s.Neurons))
	}
	if err != nil {
		s.EpochError = fmt.Sprintf("epoch %d at block %d: %v", s.Epoch, s.Head, err)
		return
	}
	s.EpochError = ""
	for i := range s.Neurons {
		nr := s.own(i)
		nr.Results = results{
			ValidatorTrust: out.ValidatorTrust[i], Consensus: out.Consensus[i],
			Incentive: out.Incentive[i], Dividends: out.Dividends[i],
		}
		nr.Bonds = out.Bonds[i]
	}
}

func checkOutput(out EpochOutput, n int) error {
	for name, v := range map[string][]uint16{"validator_trust": out.ValidatorTrust, "consensus": out.Consensus, "incentive": out.Incentive, "dividends": out.Dividends} {
		if len(v) != n {
			return fmt.Errorf("consensus returned %d %s values for %d neurons", len(v), name, n)
		}
	}
	if len(out.Bonds) != n {
		return fmt.Errorf("consensus returned %d bond rows for %d neurons", len(out.Bonds), n)
	}
	for i, row := range out.Bonds {
		if len(row) != n {
			return fmt.Errorf("consensus returned bond row %d of %d values for %d neurons", i, len(row), n)
		}
	}
	return nil
}
