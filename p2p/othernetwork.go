package p2p

import (
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// A validator's hotkey may sign a ledger on each of several networks
// (record.Network): records of another network are valid there and
// invalid here, and no honest peer of this network forwards them. The
// store refuses them too; checking first saves fetching a block's objects,
// and keeps a fork proof of two such blocks from waiting for a backfill.

// checkBlockNetwork refuses a block of another network than the store's,
// or of block format 1, which names none. A store not yet bound to a
// network (an observer's, started without the chain's genesis hash) takes
// a format-2 block of its subnet on any chain: the first it stores binds
// it, and one of another subnet would bind it to that subnet for good.
func (n *Network) checkBlockNetwork(b *record.Block) error {
	if b.Format != record.BlockFormat {
		return fmt.Errorf("block of %s at height %d is of format %d, which names no network", b.Validator, b.Height, b.Format)
	}
	if err := n.checkNetwork(b.Net); err != nil {
		return fmt.Errorf("block of %s at height %d: %w", b.Validator, b.Height, err)
	}
	return nil
}

// checkNetwork refuses another network than the store's, or, while the
// store has none, another subnet than the node's.
func (n *Network) checkNetwork(net record.Network) error {
	ours := n.store.Network()
	switch {
	case ours.IsZero() && net.Netuid != n.cfg.NetUID:
		return fmt.Errorf("it is of %s, this node's ledger of subnet %d", net, n.cfg.NetUID)
	case !ours.IsZero() && net != ours:
		return fmt.Errorf("it is of %s, this node's ledger of %s", net, ours)
	}
	return nil
}

// checkProofNetwork refuses a fork proof of another network than the
// store's: its blocks prove nothing here. A store not yet bound to a
// network takes one of its subnet on any chain.
func (n *Network) checkProofNetwork(p *record.ForkProof) error {
	net, err := p.Network()
	if err != nil {
		return err
	}
	if err := n.checkNetwork(net); err != nil {
		return fmt.Errorf("fork proof of %s at height %d: %w", p.Validator, p.Height, err)
	}
	return nil
}

// errOtherNetwork is a status of another chain than the store's.
var errOtherNetwork = errors.New("peer of another network")

// checkStatusNetwork refuses a status naming another chain than the one
// the store is bound to: the peer's blocks, fork proofs and binding are of
// that chain. While either side is bound to none (an observer started
// without the chain's genesis hash, before its first block) the status is
// taken: the checks above still keep another network's records out.
func (n *Network) checkStatusNetwork(st *wire.Status) error {
	ours := n.store.Network()
	if ours.IsZero() || st.Genesis == nil || record.Hash(*st.Genesis) == ours.Genesis {
		return nil
	}
	theirs := record.Network{Genesis: record.Hash(*st.Genesis), Netuid: uint16(st.NetUID)}
	return fmt.Errorf("%w: status of %s, this node's ledger is of %s", errOtherNetwork, theirs, ours)
}

// ofItsOwnChain reports whether a record of net, refused here, came from
// a peer whose last status named net's chain, which is not the store's:
// an honest node of another chain, not a liar. Such a peer is set apart
// rather than struck or banned. It happens to an observer started
// without the genesis hash: it takes statuses of every chain until its
// first block binds it, and then refuses the other chains' blocks that
// its peers serve before the next status exchange sets them apart.
func (n *Network) ofItsOwnChain(p peer.ID, net record.Network) bool {
	ours := n.store.Network()
	if ours.IsZero() || net.Genesis == ours.Genesis {
		return false
	}
	if n.bans.apart(p) {
		// Set apart by a status since (which forgets the peer's, with
		// its genesis): a response or message of it still in flight.
		return true
	}
	theirs, ok := n.peers.genesis(p)
	return ok && theirs == net.Genesis
}

// setApartIfOfItsOwnChain sets p apart if it sent a record of net, refused
// with err, as a node of net's chain (ofItsOwnChain), and reports whether
// it did.
func (n *Network) setApartIfOfItsOwnChain(p peer.ID, net record.Network, err error) bool {
	if !n.ofItsOwnChain(p, net) {
		return false
	}
	n.setApart(p, err)
	return true
}

// proofNetwork is the network of a fork proof's blocks; zero for one
// that names none.
func proofNetwork(p *record.ForkProof) record.Network {
	net, err := p.Network()
	if err != nil {
		return record.Network{}
	}
	return net
}
