package p2p

import (
	"fmt"

	"github.com/affine-ledger/ledger/ledger/record"
)

// A validator's hotkey may sign a ledger on each of several networks
// (record.Network): records of another network are valid there and
// invalid here, and no honest peer of this network forwards them. The
// store refuses them too; checking first saves fetching a block's objects,
// and keeps a fork proof of two such blocks from waiting for a backfill.

// checkBlockNetwork refuses a block of another network than the store's,
// or of block format 1, which names none. A store not yet bound to a
// network takes a format-2 block of any.
func (n *Network) checkBlockNetwork(b *record.Block) error {
	if b.Format != record.BlockFormat {
		return fmt.Errorf("block of %s at height %d is of format %d, which names no network", b.Validator, b.Height, b.Format)
	}
	if ours := n.store.Network(); !ours.IsZero() && b.Net != ours {
		return fmt.Errorf("block of %s at height %d is of %s, this node's ledger of %s", b.Validator, b.Height, b.Net, ours)
	}
	return nil
}

// checkProofNetwork refuses a fork proof of another network than the
// store's: its blocks prove nothing here. A store not yet bound to a
// network takes any.
func (n *Network) checkProofNetwork(p *record.ForkProof) error {
	ours := n.store.Network()
	if ours.IsZero() {
		return nil
	}
	net, err := p.Network()
	if err != nil {
		return err
	}
	if net != ours {
		return fmt.Errorf("fork proof of %s at height %d is of %s, this node's ledger of %s", p.Validator, p.Height, net, ours)
	}
	return nil
}
