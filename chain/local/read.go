package local

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// The chain.Chain methods of the in-process chain. Reads copy what they
// return, so callers may keep and modify it.

// Params implements chain.Chain.
func (c *Chain) Params(context.Context) (chain.Params, error) {
	return c.Genesis().Params(), nil
}

// Head implements chain.Chain.
func (c *Chain) Head(context.Context) (chain.Block, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return chain.Block{Number: c.st.Head, Hash: c.st.HeadHash}, nil
}

// BlockHash implements chain.Chain.
func (c *Chain) BlockHash(_ context.Context, n uint64) (chain.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.st.Head {
		return chain.Hash{}, fmt.Errorf("%w: block %d is past the head %d", chain.ErrNotFound, n, c.st.Head)
	}
	return c.hashes.at(n), nil
}

// Metagraph implements chain.Chain.
func (c *Chain) Metagraph(context.Context) (*chain.Metagraph, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := &chain.Metagraph{Netuid: c.st.Genesis.Netuid, Block: c.st.Head, Epoch: c.st.Epoch, EpochBlock: c.st.EpochBlock}
	for i, n := range c.st.Neurons {
		m.Neurons = append(m.Neurons, chain.Neuron{
			UID: uint16(i), Hotkey: n.Hotkey, Stake: n.Stake, ValidatorPermit: n.Validator,
			ValidatorTrust: n.Results.ValidatorTrust, Consensus: n.Results.Consensus,
			Incentive: n.Results.Incentive, Dividends: n.Results.Dividends,
		})
	}
	return m, nil
}

// Commitment implements chain.Chain.
func (c *Chain) Commitment(_ context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, n := c.st.find(hotkey); n != nil && n.Commitment != nil {
		return exportCommitment(n), nil
	}
	return chain.Commitment{}, fmt.Errorf("%w: no commitment of %s", chain.ErrNotFound, hotkey)
}

// Commitments implements chain.Chain.
func (c *Chain) Commitments(context.Context) ([]chain.Commitment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []chain.Commitment
	for _, n := range c.st.Neurons {
		if n.Commitment != nil {
			out = append(out, exportCommitment(n))
		}
	}
	chain.SortCommitments(out)
	return out, nil
}

func exportCommitment(n *neuron) chain.Commitment {
	fields := make([]chain.Data, len(n.Commitment.Fields))
	for i, f := range n.Commitment.Fields {
		fields[i] = chain.Data{Kind: f.Kind, Bytes: slices.Clone(f.Bytes), Round: f.Round}
	}
	return chain.Commitment{Hotkey: n.Hotkey, Block: n.Commitment.Block, Fields: fields}
}

// Weights implements chain.Chain.
func (c *Chain) Weights(context.Context) ([]chain.WeightRow, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []chain.WeightRow
	for i, n := range c.st.Neurons {
		if n.Weights != nil {
			out = append(out, chain.WeightRow{UID: uint16(i), UIDs: slices.Clone(n.Weights.UIDs), Values: slices.Clone(n.Weights.Values)})
		}
	}
	return out, nil
}

// SetCommitment implements chain.Chain.
func (c *Chain) SetCommitment(_ context.Context, k *keys.Hotkey, fields []chain.Data) error {
	return c.submit(k, Call{Kind: CallSetCommitment, Fields: fields})
}

// SetWeights implements chain.Chain.
func (c *Chain) SetWeights(_ context.Context, k *keys.Hotkey, w chain.Weights) error {
	return c.submit(k, Call{Kind: CallSetWeights, Weights: w})
}

// CommitWeights implements chain.Chain.
func (c *Chain) CommitWeights(_ context.Context, k *keys.Hotkey, hash chain.Hash) error {
	return c.submit(k, Call{Kind: CallCommitWeights, Hash: hash})
}

// RevealWeights implements chain.Chain.
func (c *Chain) RevealWeights(_ context.Context, k *keys.Hotkey, r chain.Reveal) error {
	return c.submit(k, Call{Kind: CallRevealWeights, Weights: r.Weights, Salt: r.Salt})
}

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }
