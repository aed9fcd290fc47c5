package main

import (
	"fmt"

	"github.com/affine-ledger/ledger/ledger/record"
)

// parseGenesis reads a --genesis hash: 64 hex digits, not all zero. The
// zero hash is what a block names when no network is set (record.Network's
// Check refuses it); said as a malformed record it would read as if the
// flag had made one.
func parseGenesis(s string) (record.Hash, error) {
	var h record.Hash
	if err := h.UnmarshalText([]byte(s)); err != nil {
		return h, usageError{fmt.Sprintf("--genesis: %v", err)}
	}
	if h == (record.Hash{}) {
		return h, usageError{"--genesis: the hash is all zeros, which is no chain's genesis hash; give the hash of the chain's block 0"}
	}
	return h, nil
}
