package wire

import (
	"fmt"

	"github.com/affine-ledger/ledger/internal/cborbytes"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Genesis is the genesis hash of the chain a status's sender is of (the
// chain half of its store's record.Network). CBOR: a byte string of
// exactly 32 bytes, which its decoder checks itself, so that a status
// naming a chain by 31 bytes is refused as such rather than as
// non-canonical.
type Genesis record.Hash

// GenesisOf is net's genesis hash, or nil when net is unset (a store bound
// to no network yet).
func GenesisOf(net record.Network) *Genesis {
	if net.IsZero() {
		return nil
	}
	g := Genesis(net.Genesis)
	return &g
}

// String returns lower-case hex.
func (g Genesis) String() string { return record.Hash(g).String() }

// MarshalCBOR writes the 32 raw bytes as a byte string.
func (g Genesis) MarshalCBOR() ([]byte, error) { return cborbytes.Marshal(g[:]), nil }

// UnmarshalCBOR reads a 32-byte byte string.
func (g *Genesis) UnmarshalCBOR(data []byte) error {
	b, err := cborbytes.Unmarshal(data)
	if err != nil {
		return fmt.Errorf("genesis: %w", err)
	}
	if len(b) != len(g) {
		return fmt.Errorf("genesis: %d bytes, want %d", len(b), len(g))
	}
	copy(g[:], b)
	return nil
}
