package verify

import (
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/affine-ledger/ledger/ledger/record"
)

// The verifier recomputes every log with its own compact ranges instead of
// the store's Tree, so that a bug in the writer's Merkle code cannot hide
// behind the same bug in the auditor's. The hashing is spec/ledger.md's:
// RFC 6962 with SHA-256 over the transcripts' binary CIDs.
var (
	hasher       = rfc6962.DefaultHasher
	rangeFactory = compact.RangeFactory{Hash: hasher.HashChildren}
)

func leafHash(transcript cid.Cid) []byte { return hasher.HashLeaf(transcript.Bytes()) }

func treeFromFrontier(size uint64, frontier []record.Hash) (*compact.Range, error) {
	hashes := make([][]byte, len(frontier))
	for i := range frontier {
		hashes[i] = frontier[i][:]
	}
	r, err := rangeFactory.NewRange(0, size, hashes)
	if err != nil {
		return nil, fmt.Errorf("frontier of a log of size %d: %w", size, err)
	}
	return r, nil
}

func rootOf(r *compact.Range) record.Hash {
	var h record.Hash
	if r.End() == 0 {
		copy(h[:], hasher.EmptyRoot())
		return h
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		// Only a range not starting at 0 has no root; ours all start at 0.
		panic(fmt.Sprintf("verify: merkle root: %v", err))
	}
	copy(h[:], root)
	return h
}

// appendLeaf appends transcript's leaf; visit, if not nil, is called with
// the leaf and each node it completes.
func appendLeaf(r *compact.Range, transcript cid.Cid, visit compact.VisitFn) {
	if err := r.Append(leafHash(transcript), visit); err != nil {
		// Append fails only for a hash of the wrong size, never here.
		panic(fmt.Sprintf("verify: merkle append: %v", err))
	}
}
