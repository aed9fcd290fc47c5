package subtensor

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
)

func init() {
	chain.Register("subtensor", func(ctx context.Context, s chain.Spec, _ chain.OpenOptions) (chain.Chain, error) {
		return Dial(ctx, s.URL, s.Netuid)
	})
}

// Defaults subtensor uses for storage that holds no value (ValueQuery).
const (
	defaultTempo     = 360
	defaultBlockTime = 12 * time.Second
	// mortalPeriod is how many blocks a signed extrinsic stays valid.
	mortalPeriod = 64
	// inclusionTimeout bounds the wait for a submitted extrinsic to be
	// included in a block.
	inclusionTimeout = 2 * time.Minute
)

// Client reads one subnet of a subtensor node and writes to it through
// signed extrinsics, over the node's websocket JSON-RPC. It implements
// chain.Chain. It has not been run against a live node (spec/chain.md).
type Client struct {
	rpc     rpcConn
	netuid  uint16
	genesis chain.Hash

	mu sync.Mutex
	rt *Runtime
}

var _ chain.Chain = (*Client)(nil)

// Dial connects to a node (ws:// or wss://) for subnet netuid.
func Dial(ctx context.Context, url string, netuid uint16) (*Client, error) {
	rpc, err := connect(url)
	if err != nil {
		return nil, fmt.Errorf("subtensor %s: %w", url, err)
	}
	c := &Client{rpc: rpc, netuid: netuid}
	if c.genesis, err = c.blockHash(ctx, 0); err != nil {
		rpc.Close()
		return nil, err
	}
	if _, err := c.runtime(ctx); err != nil {
		rpc.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	c.rpc.Close()
	return nil
}

func (c *Client) call(ctx context.Context, out any, method string, args ...any) error {
	if err := c.rpc.CallContext(ctx, out, method, args...); err != nil {
		return fmt.Errorf("subtensor %s: %w", method, err)
	}
	return nil
}

// readCall is call for a storage read at a block hash: a pruned node's
// refusal (Substrate's "State already discarded for ...") is
// chain.ErrStateUnavailable.
func (c *Client) readCall(ctx context.Context, out any, method string, args ...any) error {
	err := c.call(ctx, out, method, args...)
	if err != nil && strings.Contains(err.Error(), "State already discarded") {
		return fmt.Errorf("%w: %w", chain.ErrStateUnavailable, err)
	}
	return err
}

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }

func unhex(s string) ([]byte, error) {
	return hex.DecodeString(strings.TrimPrefix(s, "0x"))
}

func parseHash(s string) (chain.Hash, error) {
	b, err := unhex(s)
	if err != nil || len(b) != 32 {
		return chain.Hash{}, fmt.Errorf("subtensor: bad block hash %q", s)
	}
	return chain.Hash(b), nil
}

func (c *Client) blockHash(ctx context.Context, n uint64) (chain.Hash, error) {
	var s *string
	if err := c.call(ctx, &s, "chain_getBlockHash", n); err != nil {
		return chain.Hash{}, err
	}
	if s == nil {
		return chain.Hash{}, fmt.Errorf("%w: block %d", chain.ErrNotFound, n)
	}
	return parseHash(*s)
}

// runtime returns the signing information, refreshing the metadata when
// the runtime was upgraded.
func (c *Client) runtime(ctx context.Context) (*Runtime, error) {
	var v struct {
		SpecVersion        uint32 `json:"specVersion"`
		TransactionVersion uint32 `json:"transactionVersion"`
	}
	if err := c.call(ctx, &v, "state_getRuntimeVersion"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	rt := c.rt
	c.mu.Unlock()
	if rt != nil && rt.SpecVersion == v.SpecVersion && rt.TransactionVersion == v.TransactionVersion {
		return rt, nil
	}
	var meta string
	if err := c.call(ctx, &meta, "state_getMetadata"); err != nil {
		return nil, err
	}
	parsed, err := ParseMetadata(meta)
	if err != nil {
		return nil, err
	}
	parsed.SpecVersion, parsed.TransactionVersion = v.SpecVersion, v.TransactionVersion
	c.mu.Lock()
	c.rt = &parsed
	c.mu.Unlock()
	return &parsed, nil
}

// Head implements chain.Chain: the node's best block.
func (c *Client) Head(ctx context.Context) (chain.Block, error) {
	var h struct {
		Number string `json:"number"`
	}
	if err := c.call(ctx, &h, "chain_getHeader"); err != nil {
		return chain.Block{}, err
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(h.Number, "0x"), 16, 64)
	if err != nil {
		return chain.Block{}, fmt.Errorf("subtensor: header number %q: %w", h.Number, err)
	}
	hash, err := c.blockHash(ctx, n)
	return chain.Block{Number: n, Hash: hash}, err
}

// BlockHash implements chain.Chain.
func (c *Client) BlockHash(ctx context.Context, n uint64) (chain.Hash, error) {
	return c.blockHash(ctx, n)
}

// get reads one storage value at block at; ok is false if it is absent.
func (c *Client) get(ctx context.Context, key []byte, at chain.Hash) ([]byte, bool, error) {
	var s *string
	if err := c.readCall(ctx, &s, "state_getStorage", hexOf(key), hexOf(at[:])); err != nil {
		return nil, false, err
	}
	if s == nil {
		return nil, false, nil
	}
	b, err := unhex(*s)
	return b, err == nil, err
}

// scan reads every storage entry under prefix at block at.
func (c *Client) scan(ctx context.Context, prefix []byte, at chain.Hash) (map[string][]byte, error) {
	const page = 1000
	var all []string
	start := hexOf(prefix)
	for {
		var ks []string
		if err := c.readCall(ctx, &ks, "state_getKeysPaged", hexOf(prefix), page, start, hexOf(at[:])); err != nil {
			return nil, err
		}
		all = append(all, ks...)
		if len(ks) < page {
			break
		}
		start = ks[len(ks)-1]
	}
	return c.query(ctx, all, at)
}

// query reads storage keys (0x hex) at block at.
func (c *Client) query(ctx context.Context, ks []string, at chain.Hash) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ks) == 0 {
		return out, nil
	}
	var sets []struct {
		Changes [][2]*string `json:"changes"`
	}
	if err := c.readCall(ctx, &sets, "state_queryStorageAt", ks, hexOf(at[:])); err != nil {
		return nil, err
	}
	for _, set := range sets {
		for _, ch := range set.Changes {
			if ch[0] == nil || ch[1] == nil {
				continue
			}
			k, err1 := unhex(*ch[0])
			v, err2 := unhex(*ch[1])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("subtensor: state_queryStorageAt returned bad hex")
			}
			out[string(k)] = v
		}
	}
	return out, nil
}

func (c *Client) getUint(ctx context.Context, key []byte, at chain.Hash, size int, def uint64) (uint64, error) {
	b, ok, err := c.get(ctx, key, at)
	if err != nil || !ok {
		return def, err
	}
	if len(b) != size {
		return 0, fmt.Errorf("subtensor: storage value of %d bytes, want %d", len(b), size)
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// Params implements chain.Chain.
func (c *Client) Params(ctx context.Context) (chain.Params, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return chain.Params{}, err
	}
	at := head.Hash
	p := chain.Params{Netuid: c.netuid, BlockTime: defaultBlockTime}
	if p.Tempo, err = c.getUint(ctx, keyNetVec("Tempo", c.netuid), at, 2, defaultTempo); err != nil {
		return p, err
	}
	s, err := c.schedule(ctx, at, p.Tempo)
	if err != nil {
		return p, err
	}
	p.EpochLength, p.EpochOffset = s.Length, s.Offset
	cr, err := c.getUint(ctx, keyNetVec("CommitRevealWeightsEnabled", c.netuid), at, 1, 1)
	if err != nil {
		return p, err
	}
	p.CommitReveal = cr == 1
	if p.RevealPeriod, err = c.getUint(ctx, keyRevealPeriod(c.netuid), at, 8, 1); err != nil {
		return p, err
	}
	if p.VersionKey, err = c.getUint(ctx, keyNetVec("WeightsVersionKey", c.netuid), at, 8, 0); err != nil {
		return p, err
	}
	// Absent, the runtime's default applies (InitialMinAllowedWeights,
	// 1024); a subnet created by register_network sets it to 1.
	mw, err := c.getUint(ctx, keyNetVec("MinAllowedWeights", c.netuid), at, 2, 1024)
	if err != nil {
		return p, err
	}
	p.MinAllowedWeights = uint16(mw)
	if p.MaxSpace, err = c.getUint(ctx, keyMaxSpace(), at, 4, chain.DefaultMaxSpace); err != nil {
		return p, err
	}
	return p, nil
}
