package epoch

import (
	"context"
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// ErrOwnChainBehind: the chain holds a commitment of this validator that
// its own store does not hold up to (CheckOwnChain).
var ErrOwnChainBehind = errors.New("this store does not hold the chain the validator committed")

// CheckOwnChain holds validator v's own on-chain commitment to the store
// its node is about to sign with, before it signs anything: a commitment
// above the store's head, or to a checkpoint the store's chain does not
// extend, means the store lost blocks the network holds, or another
// machine signs with the hotkey. Signing on would then put a second block
// at heights the network holds: an equivocation. A validator with no
// commitment yet passes. The error wraps ErrOwnChainBehind, or is the
// chain's or store's read error.
func CheckOwnChain(ctx context.Context, c chain.Chain, s *ledger.Store, v keys.PublicKey) error {
	checks, err := CheckCommitments(ctx, c, s, &v)
	if err != nil {
		return fmt.Errorf("check the validator's own commitment: %w", err)
	}
	for _, ch := range checks {
		if !ch.OK {
			return fmt.Errorf("validator %s: %w: its commitment at chain block %d (height %d, %d transcripts): %s",
				v, ErrOwnChainBehind, ch.ChainBlock, ch.Commitment.Height, ch.Commitment.Size, ch.Reason)
		}
	}
	return nil
}
