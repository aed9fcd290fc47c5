package vtrust

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// ErrInput is wrapped by every error Epoch returns.
var ErrInput = errors.New("vtrust: invalid epoch input")

// Validator is one validator of the epoch and its stake.
type Validator struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	// Stake is in rao, as the chain reports it for the epoch.
	Stake uint64 `json:"stake"`
}

// Miner is one registered miner: its uid, which weights address, and the
// block of its current model commitment, which breaks ties between
// contenders (the earlier commitment wins).
type Miner struct {
	Hotkey      keys.PublicKey `json:"hotkey"`
	UID         uint16         `json:"uid"`
	CommitBlock uint64         `json:"commit_block"`
}

// Input is everything one epoch's vTrust and winner are computed from
// (spec/vtrust.md, "What an epoch reads"). Order within every slice is
// irrelevant: the output is the same for any permutation.
type Input struct {
	Validators []Validator `json:"validators"`
	Miners     []Miner     `json:"miners"`
	// Champion is the champion at the start of the epoch: the previous
	// epoch's consensus winner. A zero hotkey means there is none yet.
	Champion duel.Side `json:"champion"`
	// Outcomes are the re-execution outcomes of the epoch's records, each
	// one reproduced by the caller (spec/vtrust.md: outcomes are fed only
	// once the node has reached the same verdict itself).
	Outcomes []Outcome `json:"outcomes"`
	// Votes are the duel results the validators recorded in the epoch:
	// they count toward consensus and are scored (decision agreement).
	Votes []Vote `json:"votes"`
	// Standing are the duel results recorded in the StandingEpochs−1
	// epochs before this one. They count toward every pair's majority and
	// consensus as the epoch's own votes do, but are not scored again:
	// each vote was scored in the epoch it was cast in.
	Standing []Vote `json:"standing,omitempty"`
}

// StandingEpochs is how many epochs a vote counts in: the one it is cast
// in and the 23 after it (spec/vtrust.md, "Standing votes"), about a day
// at the usual tempo of 360 blocks. Validators reach a duel when their
// queues do, so their votes on one pair can fall into different epochs;
// counted only where it was cast, no vote would then find the majority
// of stake that a dethrone needs.
const StandingEpochs = 24

// StandingSince is the earliest epoch whose votes still stand in epoch k
// (k ≥ 1): k−23, or 1 for the first epochs. Epoch k's standing votes are
// those cast in epochs StandingSince(k) to k−1.
func StandingSince(k uint64) uint64 {
	if k < StandingEpochs {
		return 1
	}
	return k - (StandingEpochs - 1)
}

// Epoch computes every validator's vTrust, the consensus outcome of every
// duel, the champion at the end of the epoch and its weights
// (spec/vtrust.md). It is a pure function of in, independent of the order
// of in's slices, and uses integers only.
func Epoch(in Input) (Output, error) {
	if err := checkInput(&in); err != nil {
		return Output{}, err
	}
	n := len(in.Validators)
	// Work in hotkey order, so that every loop below visits validators in
	// an order that does not depend on the input's.
	vals := slices.Clone(in.Validators)
	slices.SortFunc(vals, func(a, b Validator) int { return bytes.Compare(a.Hotkey[:], b.Hotkey[:]) })
	rank := make(map[[32]byte]int, n)
	for r, v := range vals {
		rank[v.Hotkey] = r
	}

	tallies, err := tallyOutcomes(in.Outcomes, rank, n)
	if err != nil {
		return Output{}, err
	}
	trust := make([]Trust, n)
	for i, v := range vals {
		t := &tallies[i]
		trust[i] = Trust{
			Hotkey: v.Hotkey, Stake: v.Stake,
			Agreed: t.agreed, Disagreed: t.disagreed, Faulted: t.faulted,
			ReexecPPM: t.ppm(), HardFault: t.faulted > 0, Evidence: t.evidence,
		}
	}

	groups, ignored, err := groupVotes(in.Votes, in.Standing, rank, trust)
	if err != nil {
		return Output{}, err
	}
	agree(groups, trust)
	out := Output{Validators: trust, IgnoredVotes: ignored}
	out.Duels, out.Total = decide(groups, trust)
	out.Changes, out.Champion = path(in.Champion, out.Duels, in.Miners)
	out.Weights = weightsFor(out.Champion, in.Miners)
	return out, nil
}

// checkInput rejects input no ledger could produce: repeated hotkeys or
// uids, invalid votes. Outcomes are checked as they are tallied.
func checkInput(in *Input) error {
	index := make(map[[32]byte]int, len(in.Validators))
	for i, v := range in.Validators {
		if v.Hotkey == (keys.PublicKey{}) {
			return fmt.Errorf("%w: validator %d has a zero hotkey", ErrInput, i)
		}
		if j, dup := index[v.Hotkey]; dup {
			return fmt.Errorf("%w: validator %s appears twice (%d and %d)", ErrInput, v.Hotkey, j, i)
		}
		index[v.Hotkey] = i
	}
	if len(in.Validators) > 1<<16 {
		return fmt.Errorf("%w: %d validators, uids are u16", ErrInput, len(in.Validators))
	}
	hotkeys := make(map[[32]byte]bool, len(in.Miners))
	uids := make(map[uint16]bool, len(in.Miners))
	for _, m := range in.Miners {
		if hotkeys[m.Hotkey] {
			return fmt.Errorf("%w: miner %s appears twice", ErrInput, m.Hotkey)
		}
		if uids[m.UID] {
			return fmt.Errorf("%w: uid %d is held by two miners", ErrInput, m.UID)
		}
		hotkeys[m.Hotkey], uids[m.UID] = true, true
	}
	for i := range in.Votes {
		if err := in.Votes[i].check(); err != nil {
			return fmt.Errorf("%w: vote %d of %s: %v", ErrInput, i, in.Votes[i].Validator, err)
		}
	}
	for i := range in.Standing {
		if err := in.Standing[i].check(); err != nil {
			return fmt.Errorf("%w: standing vote %d of %s: %v", ErrInput, i, in.Standing[i].Validator, err)
		}
	}
	return nil
}

// weightsFor gives everything to the champion's uid.
func weightsFor(c duel.Side, miners []Miner) Weights {
	for _, m := range miners {
		if m.Hotkey == c.Hotkey && c.Hotkey != (keys.PublicKey{}) {
			return Weights{UIDs: []uint16{m.UID}, Values: []uint16{65535}}
		}
	}
	return Weights{UIDs: []uint16{}, Values: []uint16{}}
}
