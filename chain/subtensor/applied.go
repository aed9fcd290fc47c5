package subtensor

import (
	"context"
	"fmt"
	"strings"

	"github.com/affine-ledger/ledger/chain"
)

// An extrinsic in a block was not necessarily applied: its call may have
// failed with a dispatch error, which leaves the call's storage unchanged
// but the extrinsic included (its fee paid, its nonce used). The block's
// System.Events say which: the extrinsic's phase has System.ExtrinsicSuccess
// or System.ExtrinsicFailed, the latter with the DispatchError, for a
// pallet's error DispatchError::Module {index: the pallet's, error: the
// variant index of its Error enum first}.

// included is an extrinsic a block holds: what submit sent and where.
type included struct {
	block chain.Hash
	ext   []byte   // the extrinsic as sent, its compact length first
	rt    *Runtime // the runtime it was signed for, whose types decode the block's events
}

// subtensorRefusals are the errors of subtensor's weight calls
// (pallets/subtensor/src/macros/errors.rs, raised by subnets/weights.rs
// and guards/check_weights.rs, check_rate_limits.rs) that package chain
// names. Any other dispatch error is chain.ErrDispatch.
var subtensorRefusals = map[string]error{
	"HotKeyNotRegisteredInSubNet":     chain.ErrNotRegistered,
	"NeuronNoValidatorPermit":         chain.ErrNoPermit,
	"WeightVecNotEqualSize":           chain.ErrBadWeights,
	"DuplicateUids":                   chain.ErrBadWeights,
	"UidVecContainInvalidOne":         chain.ErrBadWeights,
	"UidsLengthExceedUidsInSubNet":    chain.ErrBadWeights,
	"MaxWeightExceeded":               chain.ErrBadWeights,
	"WeightVecLengthIsLow":            chain.ErrTooFewWeights,
	"IncorrectWeightVersionKey":       chain.ErrVersionKey,
	"CommitRevealEnabled":             chain.ErrCommitRevealOn,
	"CommitRevealDisabled":            chain.ErrCommitRevealOff,
	"TooManyUnrevealedCommits":        chain.ErrTooManyCommits,
	"NoWeightsCommitFound":            chain.ErrNoCommit,
	"InvalidRevealCommitHashNotMatch": chain.ErrCommitMismatch,
	"RevealTooEarly":                  chain.ErrRevealTooEarly,
	"ExpiredWeightCommit":             chain.ErrRevealExpired,
	"SettingWeightsTooFast":           chain.ErrTooFast,
	"CommittingWeightsTooFast":        chain.ErrTooFast,
}

// refusal is the chain error of a dispatch error; chain.Refused reports
// true for every one.
func refusal(e *dispatchError) error {
	if e.pallet == "SubtensorModule" {
		if err, ok := subtensorRefusals[e.error]; ok {
			return fmt.Errorf("%w (%s)", err, e)
		}
	}
	return fmt.Errorf("%w: %s", chain.ErrDispatch, e)
}

// outcome finds the outcome event of the block's extrinsic i: nil for
// ExtrinsicSuccess, the dispatch error for ExtrinsicFailed. Anything but
// exactly one of them is an error.
func outcome(records []eventRecord, i int) (*dispatchError, error) {
	var found []eventRecord
	for _, r := range records {
		if r.extrinsic == i && r.pallet == "System" && (r.name == "ExtrinsicSuccess" || r.name == "ExtrinsicFailed") {
			found = append(found, r)
		}
	}
	switch {
	case len(found) != 1:
		return nil, fmt.Errorf("extrinsic %d has %d outcome events (System.ExtrinsicSuccess or ExtrinsicFailed), want 1", i, len(found))
	case found[0].name == "ExtrinsicSuccess":
		return nil, nil
	case found[0].failure == nil:
		return nil, fmt.Errorf("extrinsic %d failed with no dispatch error", i)
	}
	return found[0].failure, nil
}

// applied reports whether inc's call was applied: nil if it was; the
// chain's refusal (chain.Refused) if it failed; an error that is not a
// refusal if the node's block and events do not tell.
func (c *Client) applied(ctx context.Context, name string, inc included) error {
	fail, err := c.dispatchOutcome(ctx, inc)
	if err != nil {
		return fmt.Errorf("subtensor %s in block %s: cannot tell whether it was applied: %w", name, inc.block, err)
	}
	if fail != nil {
		return fmt.Errorf("subtensor %s in block %s: %w", name, inc.block, refusal(fail))
	}
	return nil
}

func (c *Client) dispatchOutcome(ctx context.Context, inc included) (*dispatchError, error) {
	if inc.rt == nil || inc.rt.meta == nil {
		return nil, fmt.Errorf("no runtime metadata")
	}
	var b struct {
		Block struct {
			Extrinsics []string `json:"extrinsics"`
		} `json:"block"`
	}
	if err := c.call(ctx, &b, "chain_getBlock", hexOf(inc.block[:])); err != nil {
		return nil, err
	}
	want := hexOf(inc.ext)
	i := -1
	for j, x := range b.Block.Extrinsics {
		if strings.EqualFold(x, want) {
			i = j
			break
		}
	}
	if i < 0 {
		return nil, fmt.Errorf("the block's %d extrinsics do not include it", len(b.Block.Extrinsics))
	}
	raw, ok, err := c.get(ctx, keySystemEvents(), inc.block)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the block has no System.Events")
	}
	records, err := decodeEvents(inc.rt.meta, raw)
	if err != nil {
		return nil, fmt.Errorf("System.Events: %w", err)
	}
	return outcome(records, i)
}

func keySystemEvents() []byte { return StorageKey("System", "Events") }
