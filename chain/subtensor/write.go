package subtensor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// submit signs call with k and waits until a block includes it; it returns
// the block and the extrinsic. Included is not applied: Client.applied
// tells.
func (c *Client) submit(ctx context.Context, k *keys.Hotkey, name string, build func(CallIndex) ([]byte, error)) (included, error) {
	rt, err := c.runtime(ctx)
	if err != nil {
		return included{}, err
	}
	call, err := build(rt.Calls[name])
	if err != nil {
		return included{}, err
	}
	head, err := c.Head(ctx)
	if err != nil {
		return included{}, err
	}
	var nonce uint64
	if err := c.call(ctx, &nonce, "system_accountNextIndex", k.Public().SS58()); err != nil {
		return included{}, err
	}
	ext, err := signExtrinsic(k, rt.exts, call, SignParams{
		Era: Era{Period: mortalPeriod, Current: head.Number}, Nonce: nonce,
		SpecVersion: rt.SpecVersion, TransactionVersion: rt.TransactionVersion,
		Genesis: c.genesis, EraBlock: head.Hash,
	})
	if err != nil {
		return included{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, inclusionTimeout)
	defer cancel()
	updates := make(chan json.RawMessage, 16)
	sub, err := c.rpc.Subscribe(ctx, "author", "submitAndWatchExtrinsic", "unwatchExtrinsic", "extrinsicUpdate", updates, hexOf(ext))
	if err != nil {
		var coded interface{ ErrorCode() int }
		if errors.As(err, &coded) && coded.ErrorCode() == rpcInvalidTransaction {
			return included{}, poolRefusal(name, coded.(error))
		}
		return included{}, fmt.Errorf("subtensor %s: submit: %w", name, err)
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return included{}, fmt.Errorf("subtensor %s: waiting for inclusion: %w", name, ctx.Err())
		case err := <-sub.Err():
			return included{}, fmt.Errorf("subtensor %s: %w", name, err)
		case u := <-updates:
			block, done, err := inclusion(u)
			if err != nil {
				return included{}, fmt.Errorf("subtensor %s: %w", name, err)
			}
			if done {
				return included{block: block, ext: ext, rt: rt}, nil
			}
		}
	}
}

// rpcInvalidTransaction is the JSON-RPC error code by which a Substrate
// node's author API says the runtime's checks refused a transaction
// (its data names the check, as "Custom error: 17").
const rpcInvalidTransaction = 1010

// inclusion reads one transaction status update: done with the block hash
// once the extrinsic is in a block, an error if the pool dropped it. One
// the pool found invalid was judged (chain.ErrInvalidTransaction); one it
// dropped (full, or the node stopping) was not.
func inclusion(u json.RawMessage) (chain.Hash, bool, error) {
	var word string
	if json.Unmarshal(u, &word) == nil {
		switch word {
		case "invalid":
			return chain.Hash{}, false, fmt.Errorf("transaction invalid: %w", chain.ErrInvalidTransaction)
		case "dropped":
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

// errNotApplied: the commitment is not what was set at the block that
// included it: the call failed (a dispatch error, which SetCommitment does
// not decode from the events).
var errNotApplied = errors.New("included in a block but not applied (dispatch error: see the block's events)")

// SetCommitment implements chain.Chain. A dispatch error (such as the space
// limit) is detected by reading the commitment back at the inclusion block.
func (c *Client) SetCommitment(ctx context.Context, k *keys.Hotkey, fields []chain.Data) error {
	if _, err := chain.EncodeFields(fields); err != nil {
		return err
	}
	inc, err := c.submit(ctx, k, callSetCommitment, func(idx CallIndex) ([]byte, error) {
		return SetCommitmentCall(idx, c.netuid, fields)
	})
	if err != nil {
		return err
	}
	got, err := view{c: c, at: chain.Block{Hash: inc.block}}.Commitment(ctx, k.Public())
	if err != nil || !sameFields(got.Fields, fields) {
		return fmt.Errorf("subtensor set_commitment in block %s: %w", inc.block, errNotApplied)
	}
	return nil
}

func sameFields(a, b []chain.Data) bool {
	return slices.EqualFunc(a, b, func(x, y chain.Data) bool {
		return x.Kind == y.Kind && x.Round == y.Round && string(x.Bytes) == string(y.Bytes)
	})
}

// SetWeights implements chain.Chain. It returns once a block includes the
// extrinsic; a call the chain refused there (a dispatch error) is the
// refusal, as package chain names it (applied.go).
func (c *Client) SetWeights(ctx context.Context, k *keys.Hotkey, w chain.Weights) error {
	return c.write(ctx, k, callSetWeights, func(idx CallIndex) ([]byte, error) {
		return SetWeightsCall(idx, c.netuid, w), nil
	})
}

// CommitWeights implements chain.Chain, as SetWeights does.
func (c *Client) CommitWeights(ctx context.Context, k *keys.Hotkey, h chain.Hash) error {
	return c.write(ctx, k, callCommitWeights, func(idx CallIndex) ([]byte, error) {
		return CommitWeightsCall(idx, c.netuid, h), nil
	})
}

// RevealWeights implements chain.Chain, as SetWeights does.
func (c *Client) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	return c.write(ctx, k, callRevealWeights, func(idx CallIndex) ([]byte, error) {
		return RevealWeightsCall(idx, c.netuid, r), nil
	})
}

// write submits a call and reports whether the block that included it
// applied it.
func (c *Client) write(ctx context.Context, k *keys.Hotkey, name string, build func(CallIndex) ([]byte, error)) error {
	inc, err := c.submit(ctx, k, name, build)
	if err != nil {
		return err
	}
	return c.applied(ctx, name, inc)
}
