package ledger

import (
	"fmt"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The store keeps every perfect-subtree node of every log (the leaf hashes
// at level 0 included), written with the block that completes them. So any
// proof for any size up to the head is O(log n) point reads, and a Tree for
// any size can be rebuilt without touching the leaves.

// LeafHash returns the stored Merkle leaf hash of v's leaf index.
func (s *Store) LeafHash(v keys.PublicKey, index uint64) (record.Hash, error) {
	var out record.Hash
	err := s.withView(func(r reader) error {
		h, err := head(r, v)
		if err != nil {
			return err
		}
		if index >= h.Checkpoint.Size {
			return fmt.Errorf("leaf %d of %s: %w: the log has %d", index, v, ErrNotFound, h.Checkpoint.Size)
		}
		out, err = node(r, v, compact.NewNodeID(0, index))
		return err
	})
	return out, err
}

// Frontier returns the compact range of v's log at size: the roots of the
// perfect subtrees covering [0, size), left to right (TreeFromFrontier).
func (s *Store) Frontier(v keys.PublicKey, size uint64) ([]record.Hash, error) {
	var out []record.Hash
	err := s.withView(func(r reader) error {
		if err := checkSizes(r, v, size); err != nil {
			return err
		}
		t, err := treeAt(r, v, size)
		if err != nil {
			return err
		}
		out = t.Frontier()
		return nil
	})
	return out, err
}

// InclusionProof returns the RFC 6962 audit path of leaf index in v's log
// at size, for VerifyInclusion against the checkpoint of that size.
func (s *Store) InclusionProof(v keys.PublicKey, index, size uint64) ([][]byte, error) {
	var out [][]byte
	err := s.withView(func(r reader) error {
		if err := checkSizes(r, v, size); err != nil {
			return err
		}
		nodes, err := proof.Inclusion(index, size)
		if err != nil {
			// The index is past the size: no such leaf at that checkpoint.
			return fmt.Errorf("inclusion proof for %s: %w: %w", v, ErrNotFound, err)
		}
		out, err = rehash(r, v, nodes)
		return err
	})
	return out, err
}

// ConsistencyProof returns the RFC 6962 proof that v's log at size1 is a
// prefix of the log at size2, for VerifyConsistency.
func (s *Store) ConsistencyProof(v keys.PublicKey, size1, size2 uint64) ([][]byte, error) {
	var out [][]byte
	err := s.withView(func(r reader) error {
		if err := checkSizes(r, v, size2); err != nil {
			return err
		}
		nodes, err := proof.Consistency(size1, size2)
		if err != nil {
			// size1 is past size2: the log never shrinks, so no such proof.
			return fmt.Errorf("consistency proof for %s: %w: %w", v, ErrNotFound, err)
		}
		out, err = rehash(r, v, nodes)
		return err
	})
	return out, err
}

func checkSizes(r reader, v keys.PublicKey, size uint64) error {
	h, err := head(r, v)
	if err != nil {
		return err
	}
	if size > h.Checkpoint.Size {
		return fmt.Errorf("log of %s has %d transcripts, not %d: %w", v, h.Checkpoint.Size, size, ErrNotFound)
	}
	return nil
}

func rehash(r reader, v keys.PublicKey, nodes proof.Nodes) ([][]byte, error) {
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		h, err := node(r, v, id)
		if err != nil {
			return nil, err
		}
		hashes[i] = h[:]
	}
	return nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
}
