package subtensor

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// view reads the subnet's storage at one block, by its hash: every read
// of one view sees the same state, however the head moves meanwhile.
type view struct {
	c  *Client
	at chain.Block
}

var _ chain.Reader = view{}

// head pins the node's best block.
func (c *Client) head(ctx context.Context) (view, error) {
	h, err := c.Head(ctx)
	return view{c: c, at: h}, err
}

// At implements chain.Chain: storage read at block n's hash. A pruned node
// refuses reads of state it discarded (ErrStateUnavailable).
func (c *Client) At(ctx context.Context, n uint64) (chain.Reader, error) {
	h, err := c.blockHash(ctx, n)
	if err != nil {
		return nil, err
	}
	return view{c: c, at: chain.Block{Number: n, Hash: h}}, nil
}

// Metagraph implements chain.Reader at the head.
func (c *Client) Metagraph(ctx context.Context) (*chain.Metagraph, error) {
	v, err := c.head(ctx)
	if err != nil {
		return nil, err
	}
	return v.Metagraph(ctx)
}

// Commitment implements chain.Reader at the head.
func (c *Client) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	v, err := c.head(ctx)
	if err != nil {
		return chain.Commitment{}, err
	}
	return v.Commitment(ctx, hotkey)
}

// Commitments implements chain.Reader at the head.
func (c *Client) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	v, err := c.head(ctx)
	if err != nil {
		return nil, err
	}
	return v.Commitments(ctx)
}

// Weights implements chain.Reader at the head.
func (c *Client) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	v, err := c.head(ctx)
	if err != nil {
		return nil, err
	}
	return v.Weights(ctx)
}

// Metagraph reads SubtensorModule's storage: Keys, ValidatorPermit,
// ValidatorTrust, Consensus, Incentive, Dividends, TotalHotkeyAlpha (the
// stake), SubnetEpochIndex, LastMechansimStepBlock.
func (v view) Metagraph(ctx context.Context) (*chain.Metagraph, error) {
	c, at := v.c, v.at.Hash
	n, err := c.getUint(ctx, keySubnetworkN(c.netuid), at, 2, 0)
	if err != nil {
		return nil, err
	}
	m := &chain.Metagraph{Netuid: c.netuid, Block: v.at.Number, Neurons: make([]chain.Neuron, n)}
	prefix := keyKeysPrefix(c.netuid)
	entries, err := c.scan(ctx, prefix, at)
	if err != nil {
		return nil, err
	}
	for k, val := range entries {
		if len(k) != len(prefix)+2 || len(val) != 32 {
			return nil, fmt.Errorf("subtensor: Keys entry of %d key bytes and %d value bytes", len(k), len(val))
		}
		uid := binary.LittleEndian.Uint16([]byte(k[len(prefix):]))
		if uint64(uid) < n {
			m.Neurons[uid].Hotkey = keys.PublicKey(val)
		}
	}
	for i := range m.Neurons {
		m.Neurons[i].UID = uint16(i)
	}
	permits, err := vecOf(ctx, c, "ValidatorPermit", at, decodeBools)
	if err != nil {
		return nil, err
	}
	for i := range m.Neurons {
		if i < len(permits) {
			m.Neurons[i].ValidatorPermit = permits[i]
		}
	}
	for _, f := range []struct {
		item string
		set  func(*chain.Neuron, uint16)
	}{
		{"ValidatorTrust", func(n *chain.Neuron, v uint16) { n.ValidatorTrust = v }},
		{"Consensus", func(n *chain.Neuron, v uint16) { n.Consensus = v }},
		// Keyed by NetUidStorageIndex, which equals the netuid for the
		// subnet's main mechanism.
		{"Incentive", func(n *chain.Neuron, v uint16) { n.Incentive = v }},
		{"Dividends", func(n *chain.Neuron, v uint16) { n.Dividends = v }},
	} {
		vals, err := vecOf(ctx, c, f.item, at, decodeU16s)
		if err != nil {
			return nil, err
		}
		for i := range m.Neurons {
			if i < len(vals) {
				f.set(&m.Neurons[i], vals[i])
			}
		}
	}
	var stakeKeys []string
	for _, nr := range m.Neurons {
		stakeKeys = append(stakeKeys, hexOf(keyTotalHotkeyAlpha(nr.Hotkey, c.netuid)))
	}
	stakes, err := c.query(ctx, stakeKeys, at)
	if err != nil {
		return nil, err
	}
	for i, nr := range m.Neurons {
		if val, ok := stakes[string(keyTotalHotkeyAlpha(nr.Hotkey, c.netuid))]; ok && len(val) == 8 {
			m.Neurons[i].Stake = binary.LittleEndian.Uint64(val)
		}
	}
	if m.Epoch, err = c.getUint(ctx, keySubnetEpochIndex(c.netuid), at, 8, 0); err != nil {
		return nil, err
	}
	if m.EpochBlock, err = c.getUint(ctx, keyNetVec("LastMechansimStepBlock", c.netuid), at, 8, 0); err != nil {
		return nil, err
	}
	return m, nil
}

func vecOf[T any](ctx context.Context, c *Client, item string, at chain.Hash, decode func([]byte) ([]T, error)) ([]T, error) {
	b, ok, err := c.get(ctx, keyNetVec(item, c.netuid), at)
	if err != nil || !ok {
		return nil, err
	}
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("subtensor: %s: %w", item, err)
	}
	return v, nil
}

// Commitment reads Commitments.CommitmentOf.
func (v view) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	c := v.c
	b, ok, err := c.get(ctx, keyCommitment(c.netuid, hotkey), v.at.Hash)
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

// Commitments reads every CommitmentOf entry of the subnet. Entries that
// do not decode (a runtime's newer Data variants, say) are skipped rather
// than failing the whole list.
func (v view) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	prefix := keyCommitmentPrefix(v.c.netuid)
	entries, err := v.c.scan(ctx, prefix, v.at.Hash)
	if err != nil {
		return nil, err
	}
	var out []chain.Commitment
	for k, val := range entries {
		if len(k) != len(prefix)+8+32 {
			continue
		}
		block, fields, err := DecodeRegistration(val)
		if err != nil {
			continue
		}
		out = append(out, chain.Commitment{Hotkey: keys.PublicKey([]byte(k[len(prefix)+8:])), Block: block, Fields: fields})
	}
	chain.SortCommitments(out)
	return out, nil
}

// Weights reads SubtensorModule.Weights, and LastUpdate (a Vec<u64> by
// uid, keyed by the netuid storage index, Identity; absent, or shorter
// than a uid, reads as 0).
func (v view) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	prefix := keyWeightsPrefix(v.c.netuid)
	entries, err := v.c.scan(ctx, prefix, v.at.Hash)
	if err != nil {
		return nil, err
	}
	lastUpdate, err := vecOf(ctx, v.c, "LastUpdate", v.at.Hash, decodeU64s)
	if err != nil {
		return nil, err
	}
	var out []chain.WeightRow
	for k, val := range entries {
		if len(k) != len(prefix)+2 {
			continue
		}
		uids, values, err := decodeWeights(val)
		if err != nil {
			return nil, fmt.Errorf("subtensor: weights: %w", err)
		}
		uid := uint16(k[len(prefix)]) | uint16(k[len(prefix)+1])<<8
		row := chain.WeightRow{UID: uid, UIDs: uids, Values: values}
		if int(uid) < len(lastUpdate) {
			row.LastUpdate = lastUpdate[uid]
		}
		out = append(out, row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out, nil
}
