package local

import (
	"context"
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// keptBoundaries is how many epoch boundaries' states the chain keeps for
// chain.Chain.At: a validator reads an epoch's participants at its
// boundary a few blocks later. A validator catching up after a restart
// reads older boundaries, package epoch up to maxCatchUp (64) epochs
// back; past the last 16 it gets chain.ErrStateUnavailable and fails
// those epochs (spec/epoch.md), as it would against a pruned subtensor
// node, which keeps about 256 blocks, less than one epoch at the default
// tempo.
const keptBoundaries = 16

// snapshot is the part of the state chain.Reader reports, frozen at one
// block. Reads copy out of it, so callers may keep and modify what they
// get.
type snapshot struct {
	Block      uint64         `json:"block"`
	Epoch      uint64         `json:"epoch"`
	EpochBlock uint64         `json:"epoch_block"`
	Neurons    []snapshotUnit `json:"neurons"`
}

type snapshotUnit struct {
	Hotkey     keys.PublicKey `json:"hotkey"`
	Stake      uint64         `json:"stake"`
	Validator  bool           `json:"validator"`
	Results    results        `json:"results"`
	Commitment *commitment    `json:"commitment,omitempty"`
	Weights    *weightRow     `json:"weights,omitempty"`
	// LastUpdate is the neuron's; a state kept before it was recorded
	// reads as 0.
	LastUpdate uint64 `json:"last_update,omitempty"`
}

// snapshot freezes what the state reports at its head.
func (s *state) snapshot() snapshot {
	sn := snapshot{Block: s.Head, Epoch: s.Epoch, EpochBlock: s.EpochBlock, Neurons: make([]snapshotUnit, len(s.Neurons))}
	for i, n := range s.Neurons {
		u := snapshotUnit{Hotkey: n.Hotkey, Stake: n.Stake, Validator: n.Validator, Results: n.Results, LastUpdate: n.LastUpdate}
		if n.Commitment != nil {
			u.Commitment = &commitment{Block: n.Commitment.Block, Fields: cloneFields(n.Commitment.Fields)}
		}
		if n.Weights != nil {
			u.Weights = &weightRow{UIDs: slices.Clone(n.Weights.UIDs), Values: slices.Clone(n.Weights.Values)}
		}
		sn.Neurons[i] = u
	}
	return sn
}

// keepBoundary is called as block s.Head stops being the head: its state
// is final, and kept if the block is an epoch boundary.
func (s *state) keepBoundary() {
	if !s.Genesis.Schedule().IsStart(s.Head) {
		return
	}
	s.Kept = append(s.Kept, s.snapshot())
	if len(s.Kept) > keptBoundaries {
		s.Kept = slices.Delete(s.Kept, 0, len(s.Kept)-keptBoundaries)
	}
}

// at returns the state as of block n.
func (s *state) at(n uint64) (snapshot, error) {
	if n > s.Head {
		return snapshot{}, fmt.Errorf("%w: block %d is past the head %d", chain.ErrNotFound, n, s.Head)
	}
	if n == s.Head {
		return s.snapshot(), nil
	}
	for _, k := range s.Kept {
		if k.Block == n {
			return k, nil
		}
	}
	return snapshot{}, fmt.Errorf("%w: block %d; the local chain keeps the head's state and that of the last %d epoch boundaries (the first blocks of its epochs)",
		chain.ErrStateUnavailable, n, keptBoundaries)
}

// frozen is a chain.Reader of one snapshot.
type frozen struct {
	netuid uint16
	sn     snapshot
}

var _ chain.Reader = frozen{}

func (f frozen) Metagraph(context.Context) (*chain.Metagraph, error) {
	m := &chain.Metagraph{Netuid: f.netuid, Block: f.sn.Block, Epoch: f.sn.Epoch, EpochBlock: f.sn.EpochBlock}
	for i, n := range f.sn.Neurons {
		m.Neurons = append(m.Neurons, chain.Neuron{
			UID: uint16(i), Hotkey: n.Hotkey, Stake: n.Stake, ValidatorPermit: n.Validator,
			ValidatorTrust: n.Results.ValidatorTrust, Consensus: n.Results.Consensus,
			Incentive: n.Results.Incentive, Dividends: n.Results.Dividends,
		})
	}
	return m, nil
}

func (f frozen) Commitment(_ context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	for _, n := range f.sn.Neurons {
		if n.Hotkey == hotkey && n.Commitment != nil {
			return exportCommitment(n), nil
		}
	}
	return chain.Commitment{}, fmt.Errorf("%w: no commitment of %s", chain.ErrNotFound, hotkey)
}

func (f frozen) Commitments(context.Context) ([]chain.Commitment, error) {
	var out []chain.Commitment
	for _, n := range f.sn.Neurons {
		if n.Commitment != nil {
			out = append(out, exportCommitment(n))
		}
	}
	chain.SortCommitments(out)
	return out, nil
}

func exportCommitment(n snapshotUnit) chain.Commitment {
	return chain.Commitment{Hotkey: n.Hotkey, Block: n.Commitment.Block, Fields: cloneFields(n.Commitment.Fields)}
}

func cloneFields(fs []chain.Data) []chain.Data {
	out := make([]chain.Data, len(fs))
	for i, f := range fs {
		out[i] = chain.Data{Kind: f.Kind, Bytes: slices.Clone(f.Bytes), Round: f.Round}
	}
	return out
}

func (f frozen) Weights(context.Context) ([]chain.WeightRow, error) {
	var out []chain.WeightRow
	for i, n := range f.sn.Neurons {
		if n.Weights != nil {
			out = append(out, chain.WeightRow{UID: uint16(i), UIDs: slices.Clone(n.Weights.UIDs), Values: slices.Clone(n.Weights.Values), LastUpdate: n.LastUpdate})
		}
	}
	return out, nil
}
