package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/keys"
)

// maxResponse bounds a response body (a full metagraph is ~100 KiB).
const maxResponse = 16 << 20

// Client speaks the local chain's HTTP protocol to a Server. It implements
// chain.Chain; its writes are signed here and verified by the server.
type Client struct {
	base    string
	http    *http.Client
	genesis chain.Hash
	params  chain.Params
}

var _ chain.Chain = (*Client)(nil)

// Dial connects to a "ledger chain serve" instance at base
// (http://127.0.0.1:PORT) and reads its genesis hash and parameters.
func Dial(ctx context.Context, base string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("local chain URL %q: want http://HOST:PORT", base)
	}
	c := &Client{base: u.Scheme + "://" + u.Host, http: &http.Client{Timeout: 30 * time.Second}}
	var info Info
	if err := c.get(ctx, "/v1/info", &info); err != nil {
		return nil, err
	}
	if info.Protocol != ProtocolVersion {
		return nil, fmt.Errorf("local chain at %s speaks protocol %d, this client %d", c.base, info.Protocol, ProtocolVersion)
	}
	c.genesis, c.params = info.GenesisHash, info.Params
	return c, nil
}

// GenesisHash is the served chain's genesis hash.
func (c *Client) GenesisHash() chain.Hash { return c.genesis }

func (c *Client) get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, "", nil, out)
}

func (c *Client) do(ctx context.Context, method, path, token string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("local chain %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("local chain %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("local chain %s %s: %w", method, path, err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("local chain %s %s: response over %d bytes", method, path, maxResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("local chain %s %s: response: %w", method, path, err)
	}
	return nil
}

// decodeError turns an error body back into the chain error it names. A
// server's message and code are kept to maxErrorText bytes each: an error
// goes into logs, and the body may be up to maxResponse.
func decodeError(status int, data []byte) error {
	var body errorBody
	if err := json.Unmarshal(data, &body); err != nil || body.Error.Code == "" {
		return fmt.Errorf("local chain: HTTP %d: %.200q", status, data)
	}
	msg := cutText(body.Error.Message, maxErrorText)
	for _, e := range errorCodes {
		if e.code == body.Error.Code {
			return &remoteError{err: e.err, msg: msg}
		}
	}
	return fmt.Errorf("local chain: %s: %s", cutText(body.Error.Code, maxErrorText), msg)
}

const maxErrorText = 4096

// cutText keeps at most max bytes of s, cut on a UTF-8 boundary, marked
// with "…" when cut.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return textcut.Prefix(s, max) + "…"
}

// remoteError is a server's refusal: it prints the server's message and
// matches the sentinel error its code names.
type remoteError struct {
	err error
	msg string
}

func (e *remoteError) Error() string { return "local chain: " + e.msg }
func (e *remoteError) Unwrap() error { return e.err }

// Params implements chain.Chain.
func (c *Client) Params(ctx context.Context) (chain.Params, error) {
	var p chain.Params
	return p, c.get(ctx, "/v1/params", &p)
}

// Head implements chain.Chain.
func (c *Client) Head(ctx context.Context) (chain.Block, error) {
	var b chain.Block
	return b, c.get(ctx, "/v1/head", &b)
}

// BlockHash implements chain.Chain.
func (c *Client) BlockHash(ctx context.Context, n uint64) (chain.Hash, error) {
	var b chain.Block
	err := c.get(ctx, fmt.Sprintf("/v1/blocks/%d", n), &b)
	return b.Hash, err
}

// remote reads the served chain's state at the head (at empty) or as of
// a block (at "?at=N").
type remote struct {
	c  *Client
	at string
}

var _ chain.Reader = remote{}

// At implements chain.Chain. The block is checked by the server at each
// read: ErrNotFound past its head, ErrStateUnavailable where it keeps no
// state.
func (c *Client) At(_ context.Context, n uint64) (chain.Reader, error) {
	return remote{c: c, at: fmt.Sprintf("?at=%d", n)}, nil
}

// Metagraph implements chain.Reader at the head.
func (c *Client) Metagraph(ctx context.Context) (*chain.Metagraph, error) {
	return remote{c: c}.Metagraph(ctx)
}

// Commitment implements chain.Reader at the head.
func (c *Client) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	return remote{c: c}.Commitment(ctx, hotkey)
}

// Commitments implements chain.Reader at the head.
func (c *Client) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	return remote{c: c}.Commitments(ctx)
}

// Weights implements chain.Reader at the head.
func (c *Client) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	return remote{c: c}.Weights(ctx)
}

func (r remote) Metagraph(ctx context.Context) (*chain.Metagraph, error) {
	var m chain.Metagraph
	if err := r.c.get(ctx, "/v1/metagraph"+r.at, &m); err != nil {
		return nil, err
	}
	for i, n := range m.Neurons {
		if int(n.UID) != i {
			return nil, fmt.Errorf("local chain: metagraph lists uid %d at position %d", n.UID, i)
		}
	}
	return &m, nil
}

func (r remote) Commitment(ctx context.Context, hotkey keys.PublicKey) (chain.Commitment, error) {
	var cm chain.Commitment
	return cm, r.c.get(ctx, "/v1/commitments/"+hotkey.SS58()+r.at, &cm)
}

func (r remote) Commitments(ctx context.Context) ([]chain.Commitment, error) {
	var cs []chain.Commitment
	return cs, r.c.get(ctx, "/v1/commitments"+r.at, &cs)
}

func (r remote) Weights(ctx context.Context) ([]chain.WeightRow, error) {
	var ws []chain.WeightRow
	return ws, r.c.get(ctx, "/v1/weights"+r.at, &ws)
}

// Nonce returns hotkey's next transaction nonce.
func (c *Client) Nonce(ctx context.Context, hotkey keys.PublicKey) (uint64, error) {
	var v struct {
		Nonce uint64 `json:"nonce"`
	}
	return v.Nonce, c.get(ctx, "/v1/nonces/"+hotkey.SS58(), &v)
}

// Submit sends a signed transaction and returns the block it was applied
// in.
func (c *Client) Submit(ctx context.Context, tx Tx) (uint64, error) {
	body, err := json.Marshal(tx)
	if err != nil {
		return 0, err
	}
	var v struct {
		Block uint64 `json:"block"`
	}
	return v.Block, c.do(ctx, http.MethodPost, "/v1/tx", "", body, &v)
}

func (c *Client) submit(ctx context.Context, k *keys.Hotkey, call Call) error {
	call.Netuid = c.params.Netuid
	var err error
	for range nonceRetries {
		var nonce uint64
		if nonce, err = c.Nonce(ctx, k.Public()); err != nil {
			return err
		}
		var tx Tx
		if tx, err = SignTx(c.genesis, k, nonce, call); err != nil {
			return err
		}
		if _, err = c.Submit(ctx, tx); !errors.Is(err, chain.ErrStaleNonce) {
			return err
		}
	}
	return err
}

// SetCommitment implements chain.Chain.
func (c *Client) SetCommitment(ctx context.Context, k *keys.Hotkey, fields []chain.Data) error {
	return c.submit(ctx, k, Call{Kind: CallSetCommitment, Fields: fields})
}

// SetWeights implements chain.Chain.
func (c *Client) SetWeights(ctx context.Context, k *keys.Hotkey, w chain.Weights) error {
	return c.submit(ctx, k, Call{Kind: CallSetWeights, Weights: w})
}

// CommitWeights implements chain.Chain.
func (c *Client) CommitWeights(ctx context.Context, k *keys.Hotkey, hash chain.Hash) error {
	return c.submit(ctx, k, Call{Kind: CallCommitWeights, Hash: hash})
}

// RevealWeights implements chain.Chain.
func (c *Client) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	return c.submit(ctx, k, Call{Kind: CallRevealWeights, Weights: r.Weights, Salt: r.Salt})
}

// Register registers or updates a hotkey through the admin API.
func (c *Client) Register(ctx context.Context, token string, req RegisterRequest) (uint16, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	var v struct {
		UID uint16 `json:"uid"`
	}
	return v.UID, c.do(ctx, http.MethodPost, "/v1/admin/register", token, body, &v)
}

// Advance produces blocks through the admin API (for servers started
// without block production) and returns the new head.
func (c *Client) Advance(ctx context.Context, token string, blocks int) (chain.Block, error) {
	body, _ := json.Marshal(map[string]int{"blocks": blocks})
	var b chain.Block
	return b, c.do(ctx, http.MethodPost, "/v1/admin/advance", token, body, &b)
}

// Close releases idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}
