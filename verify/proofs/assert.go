package proofs

import (
	"fmt"

	"github.com/affine-ledger/ledger/ledger/record"
)

// Claim is the network an auditor asserts a proof to be of (ledger
// verify-proof --genesis and --netuid): each part nil if not asserted.
type Claim struct {
	Genesis *record.Hash
	Netuid  *uint16
}

// Check reports, as an error wrapping ErrProof, a proof that verified but
// whose blocks are of another network than c asserts, naming both, or
// name none (format 1) while c asserts one. A proof of one network is a
// proof about that network's ledger only: the same hotkey may sign a
// ledger on another.
func (c Claim) Check(p Proved) error {
	if c.Genesis == nil && c.Netuid == nil {
		return nil
	}
	if p.Network == nil {
		return fmt.Errorf("%w: the proof's blocks are of format 1 and name no network; asserted: %s", ErrProof, c)
	}
	n := *p.Network
	if (c.Genesis != nil && *c.Genesis != n.Genesis) || (c.Netuid != nil && *c.Netuid != n.Netuid) {
		return fmt.Errorf("%w: the proof is of %s; asserted: %s", ErrProof, DescribeNetwork(n), c)
	}
	return nil
}

// String names what c asserts, genesis hash in full.
func (c Claim) String() string {
	switch {
	case c.Genesis == nil && c.Netuid == nil:
		return "any network"
	case c.Genesis == nil:
		return fmt.Sprintf("netuid %d of any chain", *c.Netuid)
	case c.Netuid == nil:
		return "any netuid of the chain of genesis hash " + c.Genesis.String()
	}
	return DescribeNetwork(record.Network{Genesis: *c.Genesis, Netuid: *c.Netuid})
}

// DescribeNetwork names n with its whole genesis hash, which is what an
// auditor compares (record.Network.String shortens it).
func DescribeNetwork(n record.Network) string {
	return fmt.Sprintf("netuid %d of the chain of genesis hash %s", n.Netuid, n.Genesis)
}
