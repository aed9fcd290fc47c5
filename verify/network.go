package verify

import (
	"fmt"

	"github.com/affine-ledger/ledger/ledger/record"
)

// A ledger is of one network (record.Network: a subnet of one public
// chain), and every format-2 block it holds names it (spec/verify.md, N2):
// a hotkey that validates on two networks signs a block at each height on
// each, and the other network's block, validly signed, is no block of
// this ledger. Format-1 blocks name no network and are checked for their
// format alone (N1).
//
// The ledger's network is the one the auditor asserts (Options.Genesis
// and Netuid), else the one a store records, else the first format-2
// block's whose signature verified (a forged block names nothing), each
// held to the part of a network the auditor asserts.

// admits reports whether n is a network the auditor's assertion allows.
func (o *Options) admits(n record.Network) bool {
	return (o.Genesis == nil || *o.Genesis == n.Genesis) && (o.Netuid == nil || *o.Netuid == n.Netuid)
}

// claim names what the auditor asserted.
func (o *Options) claim() string {
	switch {
	case o.Genesis == nil && o.Netuid == nil:
		return "any network"
	case o.Genesis == nil:
		return fmt.Sprintf("netuid %d of any chain", *o.Netuid)
	case o.Netuid == nil:
		return "any netuid of chain " + o.Genesis.String()[:16]
	}
	return record.Network{Genesis: *o.Genesis, Netuid: *o.Netuid}.String()
}

// recordedNetwork takes the network a store records (zero: none) as the
// ledger's, unless the auditor asserted one it contradicts, which fails
// the store.
func (vf *Verifier) recordedNetwork(n record.Network) {
	switch {
	case n.IsZero():
	case !vf.opts.admits(n):
		vf.Fail(Failure{Transcript: -1, Reason: fmt.Sprintf("the store records its network as %s, the ledger is asserted to be of %s", n, vf.opts.claim())})
	case vf.net.IsZero():
		vf.net = n
	}
}

// checkNetwork is N2: a format-2 block names the ledger's network, or
// one the auditor's assertion allows while the ledger's is not known yet.
func (vf *Verifier) checkNetwork(n record.Network) error {
	switch {
	case vf.net.IsZero() && !vf.opts.admits(n):
		return fmt.Errorf("block of %s, the ledger is of %s", n, vf.opts.claim())
	case !vf.net.IsZero() && n != vf.net:
		return fmt.Errorf("block of %s, the ledger is of %s", n, vf.net)
	}
	return nil
}

// pinNetwork makes n, which checkNetwork passed and a verified signature
// names, the ledger's network if none is known yet.
func (vf *Verifier) pinNetwork(n record.Network) {
	if vf.net.IsZero() {
		vf.net = n
	}
}

// checkFormat is N1: a block has the format of its chain's first block
// (parent, 0 before the first one).
func checkFormat(b *record.Block, parent uint64) error {
	if parent != 0 && b.Format != parent {
		return fmt.Errorf("block of format %d after a parent of format %d: a chain's blocks keep the format of its first block", b.Format, parent)
	}
	return nil
}
