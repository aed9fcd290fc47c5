package record

import (
	"fmt"
)

// Network names the ledger network a block belongs to: one subnet of one
// public chain, the chain named by the hash of its genesis block. A
// validator's hotkey may sign ledgers on several subnets, or on a test
// chain and the main one, at the same heights; a block that names its
// network can be neither replayed into another network nor paired with a
// block of another network as a false fork proof (spec/ledger.md#block).
type Network struct {
	Genesis Hash   `cbor:"genesis" json:"genesis"`
	Netuid  uint16 `cbor:"netuid" json:"netuid"`
}

// String names the subnet and the chain's whole genesis hash: two chains'
// hashes may share any prefix, and a message that names two networks must
// never print them alike.
func (n Network) String() string {
	return fmt.Sprintf("netuid %d of chain %s", n.Netuid, n.Genesis)
}

// IsZero reports whether n is unset.
func (n Network) IsZero() bool { return n == Network{} }

// Check enforces the rules of spec/ledger.md#block: a genesis hash is set.
func (n Network) Check() error {
	if n.Genesis == (Hash{}) {
		return malformed("network", "genesis hash is not set")
	}
	return nil
}
