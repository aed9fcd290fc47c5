package subtensor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// Commitment implements chain.Chain from Commitments.CommitmentOf.
func (c *Client) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return chain.Commitment{}, err
	}
	return c.commitmentAt(ctx, hotkey, head.Hash)
}

func (c *Client) commitmentAt(ctx context.Context, hotkey keys.PublicKey, at chain.Hash) (chain.Commitment, error) {
	b, ok, err := c.get(ctx, keyCommitment(c.netuid, hotkey), at)
	if err != nil {
		return chain.Commitment{}, err
	}
	if !ok {
		return chain.Commitment{}, fmt.Errorf("%w: no commitment of %s on subnet %d", chain.ErrNotFound, hotkey, c.netuid)
	}
	block, fields, err := DecodeRegistration(b)
	if err != nil {
		return chain.Commitment{}, fmt.Errorf("subtensor: commitment of %s: %w", hotkey, err)
	}
	return chain.Commitment{Hotkey: hotkey, Block: block, Fields: fields}, nil
}

// Commitments implements chain.Chain. Entries that do not decode (a
// runtime's newer Data variants, say) are skipped rather than failing the
// whole list.
func (c *Client) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return nil, err
	}
	prefix := keyCommitmentPrefix(c.netuid)
	entries, err := c.scan(ctx, prefix, head.Hash)
	if err != nil {
		return nil, err
	}
	var out []chain.Commitment
	for k, v := range entries {
		if len(k) != len(prefix)+8+32 {
			continue
		}
		block, fields, err := DecodeRegistration(v)
		if err != nil {
			continue
		}
		out = append(out, chain.Commitment{Hotkey: keys.PublicKey([]byte(k[len(prefix)+8:])), Block: block, Fields: fields})
	}
	chain.SortCommitments(out)
	return out, nil
}

// Weights implements chain.Chain from SubtensorModule.Weights.
func (c *Client) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return nil, err
	}
	prefix := keyWeightsPrefix(c.netuid)
	entries, err := c.scan(ctx, prefix, head.Hash)
	if err != nil {
		return nil, err
	}
	var out []chain.WeightRow
	for k, v := range entries {
		if len(k) != len(prefix)+2 {
			continue
		}
		uids, values, err := decodeWeights(v)
		if err != nil {
			return nil, fmt.Errorf("subtensor: weights: %w", err)
		}
		uid := uint16(k[len(prefix)]) | uint16(k[len(prefix)+1])<<8
		out = append(out, chain.WeightRow{UID: uid, UIDs: uids, Values: values})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out, nil
}

// submit signs call with k and waits until a block includes it; it returns
// that block's hash.
func (c *Client) submit(ctx context.Context, k *keys.Hotkey, name string, build func(CallIndex) ([]byte, error)) (chain.Hash, error) {
	rt, err := c.runtime(ctx)
	if err != nil {
		return chain.Hash{}, err
	}
	call, err := build(rt.Calls[name])
	if err != nil {
		return chain.Hash{}, err
	}
	head, err := c.Head(ctx)
	if err != nil {
		return chain.Hash{}, err
	}
	var nonce uint64
	if err := c.call(ctx, &nonce, "system_accountNextIndex", k.Public().SS58()); err != nil {
		return chain.Hash{}, err
	}
	ext, err := signExtrinsic(k, rt.exts, call, SignParams{
		Era: Era{Period: mortalPeriod, Current: head.Number}, Nonce: nonce,
		SpecVersion: rt.SpecVersion, TransactionVersion: rt.TransactionVersion,
		Genesis: c.genesis, EraBlock: head.Hash,
	})
	if err != nil {
		return chain.Hash{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, inclusionTimeout)
	defer cancel()
	updates := make(chan json.RawMessage, 16)
	sub, err := c.rpc.Subscribe(ctx, "author", "submitAndWatchExtrinsic", "unwatchExtrinsic", "extrinsicUpdate", updates, hexOf(ext))
	if err != nil {
		return chain.Hash{}, fmt.Errorf("subtensor %s: submit: %w", name, err)
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return chain.Hash{}, fmt.Errorf("subtensor %s: waiting for inclusion: %w", name, ctx.Err())
		case err := <-sub.Err():
			return chain.Hash{}, fmt.Errorf("subtensor %s: %w", name, err)
		case u := <-updates:
			block, done, err := inclusion(u)
			if err != nil {
				return chain.Hash{}, fmt.Errorf("subtensor %s: %w", name, err)
			}
			if done {
				return block, nil
			}
		}
	}
}

// inclusion reads one transaction status update: done with the block hash
// once the extrinsic is in a block, an error if the pool dropped it.
func inclusion(u json.RawMessage) (chain.Hash, bool, error) {
	var word string
	if json.Unmarshal(u, &word) == nil {
		switch word {
		case "dropped", "invalid":
			return chain.Hash{}, false, fmt.Errorf("transaction %s by the pool", word)
		}
		return chain.Hash{}, false, nil // ready, future
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(u, &m); err != nil {
		return chain.Hash{}, false, fmt.Errorf("transaction status %.100s", u)
	}
	for _, key := range []string{"inBlock", "finalized"} {
		if raw, ok := m[key]; ok {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return chain.Hash{}, false, fmt.Errorf("transaction status %.100s", u)
			}
			h, err := parseHash(s)
			return h, err == nil, err
		}
	}
	for _, key := range []string{"usurped", "finalityTimeout"} {
		if _, ok := m[key]; ok {
			return chain.Hash{}, false, fmt.Errorf("transaction %s", key)
		}
	}
	return chain.Hash{}, false, nil // broadcast, retracted
}

// errNotApplied: the extrinsic is in a block but its call failed (a
// dispatch error, which this client does not decode from the events).
var errNotApplied = errors.New("included in a block but not applied (dispatch error: see the block's events)")

// SetCommitment implements chain.Chain. A dispatch error (such as the space
// limit) is detected by reading the commitment back at the inclusion block.
func (c *Client) SetCommitment(ctx context.Context, k *keys.Hotkey, fields []chain.Data) error {
	if _, err := chain.EncodeFields(fields); err != nil {
		return err
	}
	block, err := c.submit(ctx, k, callSetCommitment, func(idx CallIndex) ([]byte, error) {
		return SetCommitmentCall(idx, c.netuid, fields)
	})
	if err != nil {
		return err
	}
	got, err := c.commitmentAt(ctx, k.Public(), block)
	if err != nil || !sameFields(got.Fields, fields) {
		return fmt.Errorf("subtensor set_commitment in block %s: %w", block, errNotApplied)
	}
	return nil
}

func sameFields(a, b []chain.Data) bool {
	return slices.EqualFunc(a, b, func(x, y chain.Data) bool {
		return x.Kind == y.Kind && x.Round == y.Round && string(x.Bytes) == string(y.Bytes)
	})
}

// SetWeights implements chain.Chain.
func (c *Client) SetWeights(ctx context.Context, k *keys.Hotkey, w chain.Weights) error {
	_, err := c.submit(ctx, k, callSetWeights, func(idx CallIndex) ([]byte, error) {
		return SetWeightsCall(idx, c.netuid, w), nil
	})
	return err
}

// CommitWeights implements chain.Chain.
func (c *Client) CommitWeights(ctx context.Context, k *keys.Hotkey, h chain.Hash) error {
	_, err := c.submit(ctx, k, callCommitWeights, func(idx CallIndex) ([]byte, error) {
		return CommitWeightsCall(idx, c.netuid, h), nil
	})
	return err
}

// RevealWeights implements chain.Chain.
func (c *Client) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	_, err := c.submit(ctx, k, callRevealWeights, func(idx CallIndex) ([]byte, error) {
		return RevealWeightsCall(idx, c.netuid, r), nil
	})
	return err
}
