package epoch

import (
	"context"
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// CommitmentCheck is the verdict on one validator's on-chain commitment
// against a ledger store.
type CommitmentCheck struct {
	Validator  keys.PublicKey            `json:"validator"`
	ChainBlock uint64                    `json:"chain_block"`
	Commitment chain.ValidatorCommitment `json:"commitment"`
	OK         bool                      `json:"ok"`
	// Reason says what does not match, empty when OK.
	Reason string `json:"reason,omitempty"`
	// NoChain: the store holds no chain of the validator, so nothing was
	// checked (OK is false). A store need not hold every validator's
	// chain; whether that is a failure is the caller's to say.
	NoChain bool `json:"no_chain,omitempty"`
}

// CheckCommitments holds every validator commitment on c to the store s
// (spec/epoch.md, "Checking commitments"): the validator's block at the
// committed height must exist and carry the committed checkpoint (size and
// root), and the validator's stored head must be a consistent extension of
// it (a Merkle consistency proof from the committed checkpoint to the
// head's verifies). Commitments of other formats (miners') are skipped;
// one of a validator of which s holds no chain is listed with NoChain
// set. The error is for a chain or store that cannot be read.
func CheckCommitments(ctx context.Context, c chain.Chain, s *ledger.Store, only *keys.PublicKey) ([]CommitmentCheck, error) {
	cs, err := c.Commitments(ctx)
	if err != nil {
		return nil, fmt.Errorf("read commitments: %w", err)
	}
	var out []CommitmentCheck
	for _, cm := range cs {
		if only != nil && cm.Hotkey != *only {
			continue
		}
		vc, err := chain.ParseValidatorCommitment(cm.Fields)
		if err != nil {
			continue
		}
		r := CommitmentCheck{Validator: cm.Hotkey, ChainBlock: cm.Block, Commitment: vc}
		head, err := s.Head(cm.Hotkey)
		if errors.Is(err, ledger.ErrNotFound) {
			r.Reason, r.NoChain = "the store has no chain of this validator", true
			out = append(out, r)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read head of %s: %w", cm.Hotkey, err)
		}
		r.Reason = checkOne(s, cm.Hotkey, vc, head)
		r.OK = r.Reason == ""
		out = append(out, r)
	}
	return out, nil
}

// checkOne returns why commitment vc does not hold for v's chain, or "".
func checkOne(s *ledger.Store, v keys.PublicKey, vc chain.ValidatorCommitment, head ledger.Head) string {
	if vc.Height > head.Block.Height {
		return fmt.Sprintf("commits height %d, the chain ends at %d", vc.Height, head.Block.Height)
	}
	b, err := s.BlockAt(v, vc.Height)
	if err != nil {
		return fmt.Sprintf("block at committed height %d: %v", vc.Height, err)
	}
	committed := record.Checkpoint{Size: vc.Size, Root: record.Hash(vc.Root)}
	if b.Checkpoint != committed {
		return fmt.Sprintf("block at height %d has checkpoint size %d root %s, the commitment size %d root %s",
			vc.Height, b.Checkpoint.Size, b.Checkpoint.Root, vc.Size, committed.Root)
	}
	p, err := s.ConsistencyProof(v, committed.Size, head.Checkpoint.Size)
	if err != nil {
		return fmt.Sprintf("consistency proof from size %d to %d: %v", committed.Size, head.Checkpoint.Size, err)
	}
	if err := record.VerifyConsistency(committed, head.Checkpoint, p); err != nil {
		return fmt.Sprintf("the head (height %d, size %d) does not extend the committed checkpoint: %v", head.Block.Height, head.Checkpoint.Size, err)
	}
	return ""
}
