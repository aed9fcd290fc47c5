package local

import (
	"context"
	"encoding/json"
	"fmt"

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

// At implements chain.Chain.
func (c *Chain) At(_ context.Context, n uint64) (chain.Reader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sn, err := c.st.at(n)
	if err != nil {
		return nil, err
	}
	return frozen{netuid: c.st.Genesis.Netuid, sn: sn}, nil
}

// head freezes the state at the head for one read.
func (c *Chain) atHead() frozen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return frozen{netuid: c.st.Genesis.Netuid, sn: c.st.snapshot()}
}

// Metagraph implements chain.Reader at the head.
func (c *Chain) Metagraph(ctx context.Context) (*chain.Metagraph, error) {
	return c.atHead().Metagraph(ctx)
}

// Commitment implements chain.Reader at the head.
func (c *Chain) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	return c.atHead().Commitment(ctx, hotkey)
}

// Commitments implements chain.Reader at the head.
func (c *Chain) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	return c.atHead().Commitments(ctx)
}

// Weights implements chain.Reader at the head.
func (c *Chain) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	return c.atHead().Weights(ctx)
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
