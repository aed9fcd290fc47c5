package epoch

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Equivocators returns the validators s holds a fork proof of whose fork
// lies before block number end: the smaller anchor of the proof's two
// blocks is below end (spec/epoch.md, "Equivocation"). A proof of format 1
// (a store written before block format 2) proves no equivocation and
// counts for nothing.
//
// Why the smaller anchor: a node stores the branch of a fork that reached
// it first and ignores the other, so from the fork's height on two honest
// nodes may hold different blocks of the validator. Anchors never
// decrease along a chain, so every block of either branch is anchored at
// or after the smaller of the two forked blocks' anchors, and every
// window that ends at or before it holds only the history both branches
// share. Any later window may differ from node to node, and the epoch
// reads none of the validator's records there.
func Equivocators(s *ledger.Store, end uint64) (map[keys.PublicKey]bool, error) {
	var out map[keys.PublicKey]bool
	for p, err := range s.ForkProofs() {
		if err != nil {
			return nil, fmt.Errorf("read fork proofs: %w", err)
		}
		if out[p.Validator] || !p.ProvesEquivocation() {
			continue
		}
		at, err := forkAnchor(p.ForkProof)
		if err != nil {
			return nil, fmt.Errorf("fork proof %s of %s height %d: %w", p.CID, p.Validator, p.Height, err)
		}
		if at < end {
			if out == nil {
				out = map[keys.PublicKey]bool{}
			}
			out[p.Validator] = true
		}
	}
	return out, nil
}

// forkAnchor is the smaller anchor number of p's two blocks.
func forkAnchor(p *record.ForkProof) (uint64, error) {
	a, err := record.DecodeBlock(p.A)
	if err != nil {
		return 0, err
	}
	b, err := record.DecodeBlock(p.B)
	if err != nil {
		return 0, err
	}
	return min(a.Anchor.Number, b.Anchor.Number), nil
}

// sortedKeys lists set's hotkeys in byte order.
func sortedKeys(set map[keys.PublicKey]bool) []keys.PublicKey {
	return slices.SortedFunc(maps.Keys(set), func(a, b keys.PublicKey) int { return bytes.Compare(a[:], b[:]) })
}
