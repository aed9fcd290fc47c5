package subtensor

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// TestWritesApplied runs SetWeights, CommitWeights and RevealWeights
// against a node on loopback whose block includes the extrinsic and
// whose events (encoded by go-substrate-rpc-client, under subtensor's
// shapes) say how its call went: success is nil; a dispatch error is
// package chain's refusal; a block or events that do not tell are an
// error that is not a refusal.
func TestWritesApplied(t *testing.T) {
	t.Parallel()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	w := chain.Weights{UIDs: []uint16{0, 3}, Values: []uint16{65535, 7}, VersionKey: 2}
	r := chain.Reveal{Weights: w, Salt: []uint16{9, 8}}
	writes := map[string]struct {
		call  []byte
		write func(context.Context, *Client) error
	}{
		"set": {SetWeightsCall(CallIndex{7, 0}, 1, w), func(ctx context.Context, c *Client) error { return c.SetWeights(ctx, k, w) }},
		"commit": {CommitWeightsCall(CallIndex{7, 96}, 1, chain.Hash{0xcc}), func(ctx context.Context, c *Client) error {
			return c.CommitWeights(ctx, k, chain.Hash{0xcc})
		}},
		"reveal": {RevealWeightsCall(CallIndex{7, 97}, 1, r), func(ctx context.Context, c *Client) error { return c.RevealWeights(ctx, k, r) }},
	}
	failed := func(name string) func(t testing.TB, i uint32) []byte {
		return func(t testing.TB, i uint32) []byte { return libFailed(t, i, moduleError(7, errorIndex(t, name))) }
	}
	// block builds the script's block: an inherent, a failed extrinsic of
	// another account, then ours with its outcome events.
	block := func(outcome func(t testing.TB, i uint32) []byte) func(t testing.TB, ext []byte) ([][]byte, []byte) {
		return func(t testing.TB, ext []byte) ([][]byte, []byte) {
			return [][]byte{{0x10, 0x04, 0x03, 0x00, 0x0b}, {0x08, 0x07, 0x00}, ext}, events(
				libSuccess(t, 0),
				libFailed(t, 1, moduleError(7, errorIndex(t, "RevealTooEarly"))),
				record(2, 7, 14, []byte{1, 0, 0, 0}, 0), // WeightsSet
				outcome(t, 2),
				record(finalization, 7, 200, stNoted, 0),
			)
		}
	}
	cases := []struct {
		name     string
		write    string
		script   func(t testing.TB, ext []byte) ([][]byte, []byte)
		want     error  // nil: applied
		unjudged string // not a refusal: the error says this
	}{
		{"set applied", "set", block(libSuccess), nil, ""},
		{"commit applied", "commit", block(libSuccess), nil, ""},
		{"reveal applied", "reveal", block(libSuccess), nil, ""},
		{"set too few weights", "set", block(failed("WeightVecLengthIsLow")), chain.ErrTooFewWeights, ""},
		{"set no permit", "set", block(failed("NeuronNoValidatorPermit")), chain.ErrNoPermit, ""},
		{"set too fast", "set", block(failed("SettingWeightsTooFast")), chain.ErrTooFast, ""},
		{"set commit-reveal on", "set", block(failed("CommitRevealEnabled")), chain.ErrCommitRevealOn, ""},
		{"commit not registered", "commit", block(failed("HotKeyNotRegisteredInSubNet")), chain.ErrNotRegistered, ""},
		{"commit too many", "commit", block(failed("TooManyUnrevealedCommits")), chain.ErrTooManyCommits, ""},
		{"commit too fast", "commit", block(failed("CommittingWeightsTooFast")), chain.ErrTooFast, ""},
		{"reveal too early", "reveal", block(failed("RevealTooEarly")), chain.ErrRevealTooEarly, ""},
		{"reveal mismatch", "reveal", block(failed("InvalidRevealCommitHashNotMatch")), chain.ErrCommitMismatch, ""},
		{"reveal expired", "reveal", block(failed("ExpiredWeightCommit")), chain.ErrRevealExpired, ""},
		{"reveal no commit", "reveal", block(failed("NoWeightsCommitFound")), chain.ErrNoCommit, ""},
		{"reveal version key", "reveal", block(failed("IncorrectWeightVersionKey")), chain.ErrVersionKey, ""},
		{"reveal low stake", "reveal", block(failed("NotEnoughStakeToSetWeights")), chain.ErrDispatch, ""},
		{"reveal bad origin", "reveal", block(func(t testing.TB, i uint32) []byte {
			return libFailed(t, i, types.DispatchError{IsBadOrigin: true})
		}), chain.ErrDispatch, ""},
		{"events do not decode", "reveal", block(func(testing.TB, uint32) []byte { return []byte{0, 2, 0, 0, 0, 0, 9} }), nil, "variant 9 is not in its enum"},
		{"no outcome event", "commit", block(func(t testing.TB, i uint32) []byte { return record(int(i), 7, 14, []byte{1, 0, 0, 0}, 0) }), nil, "extrinsic 2 has 0 outcome events"},
		{"no events", "set", func(t testing.TB, ext []byte) ([][]byte, []byte) { return [][]byte{ext}, nil }, nil, "no System.Events"},
		{"not in the block", "reveal", func(t testing.TB, ext []byte) ([][]byte, []byte) {
			return [][]byte{{0x04, 0x00}}, events(libSuccess(t, 0))
		}, nil, "do not include it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := &writeNode{meta: hexMetadata(encodeMetadata(t, subtensorMeta()))}
			n.script = func(ext []byte) ([][]byte, []byte) { return c.script(t, ext) }
			ctx := context.Background()
			cl, err := Dial(ctx, n.start(t), 1)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			err = writes[c.write].write(ctx, cl)
			switch {
			case c.want == nil && c.unjudged == "" && err != nil:
				t.Fatalf("applied: %v", err)
			case c.want != nil && (!errors.Is(err, c.want) || !chain.Refused(err)):
				t.Fatalf("%v, want %v", err, c.want)
			case c.unjudged != "" && (err == nil || chain.Refused(err) || !strings.Contains(err.Error(), c.unjudged) || !strings.Contains(err.Error(), "cannot tell")):
				t.Fatalf("%v, want an error that is not a refusal, about %q", err, c.unjudged)
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			if len(n.submitted) != 1 || !bytes.HasSuffix(n.submitted[0], writes[c.write].call) {
				t.Fatalf("submitted %x, want an extrinsic of call %x", n.submitted, writes[c.write].call)
			}
		})
	}
}

// TestPoolRefusals: a write the node's transaction pool refuses by the
// runtime's checks (RPC error 1010, or an "invalid" status; subtensor
// checks weights, rates and reveals there too) was a plain error, which
// the epoch driver took for a failure to reach the chain and sent again.
// It is the chain's refusal; a pool that drops a write, or another RPC
// error, is not.
func TestPoolRefusals(t *testing.T) {
	t.Parallel()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{0}, Values: []uint16{65535}}, Salt: []uint16{1}}
	for _, c := range []struct {
		name    string
		reject  map[string]any
		status  string
		refused bool
		// is is the refusal the pool's custom code names, if any.
		is error
	}{
		{"1010", map[string]any{"code": 1010, "message": "Invalid Transaction", "data": "Custom error: 17"}, "", true, chain.ErrRevealTooEarly},
		// A reveal whose commit is gone: sent again after a send the
		// chain took and whose answer was lost (epoch's appliedEarlier).
		{"1010 no commit", map[string]any{"code": 1010, "message": "Invalid Transaction", "data": "Custom error: 16"}, "", true, chain.ErrNoCommit},
		{"1010 rate limit", map[string]any{"code": 1010, "message": "Invalid Transaction", "data": "Custom error: 6"}, "", true, chain.ErrTooFast},
		{"1010 unknown code", map[string]any{"code": 1010, "message": "Invalid Transaction", "data": "Custom error: 200"}, "", true, nil},
		{"1010 other data", map[string]any{"code": 1010, "message": "Invalid Transaction", "data": "Transaction has a bad signature"}, "", true, nil},
		{"invalid status", nil, "invalid", true, nil},
		{"dropped", nil, "dropped", false, nil},
		{"other RPC error", map[string]any{"code": -32000, "message": "node is syncing"}, "", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := &writeNode{meta: hexMetadata(encodeMetadata(t, subtensorMeta())), reject: c.reject, status: c.status}
			n.script = func(ext []byte) ([][]byte, []byte) { return [][]byte{ext}, nil }
			ctx := context.Background()
			cl, err := Dial(ctx, n.start(t), 1)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			err = cl.RevealWeights(ctx, k, r)
			if err == nil {
				t.Fatal("a refused or dropped write returned nil")
			}
			if chain.Refused(err) != c.refused || errors.Is(err, chain.ErrInvalidTransaction) != c.refused {
				t.Errorf("%v: refused %v, want %v", err, chain.Refused(err), c.refused)
			}
			for _, named := range []error{chain.ErrRevealTooEarly, chain.ErrNoCommit, chain.ErrTooFast} {
				if errors.Is(err, named) != (named == c.is) {
					t.Errorf("%v: is %v: %v, want %v", err, named, errors.Is(err, named), named == c.is)
				}
			}
		})
	}
}
