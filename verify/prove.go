package verify

import (
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// ProveInclusion builds the inclusion proof of transcript c in its
// validator's log at the latest checkpoint, and checks it before
// returning it, so a store whose nodes disagree with its blocks yields an
// error rather than a proof that fails elsewhere. ledger.ErrNotFound is
// for a transcript the store does not hold; a store that holds it and
// cannot prove it is ledger.ErrCorrupt, a node missing included.
func ProveInclusion(s *ledger.Store, c cid.Cid) (*proofs.InclusionProof, error) {
	t, err := s.Transcript(c)
	if err != nil {
		return nil, err
	}
	v := t.Ref.Validator
	head, err := s.Head(v)
	if err != nil {
		return nil, damaged(err)
	}
	blk, err := s.Block(head.Block.CID)
	if err != nil {
		return nil, damaged(err)
	}
	path, err := s.InclusionProof(v, t.Ref.Leaf, blk.Checkpoint.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: the store's proof of %s: %v", ledger.ErrCorrupt, c, err)
	}
	hashes, err := hashArrays(path)
	if err != nil {
		return nil, err
	}
	p := &proofs.InclusionProof{Type: proofs.InclusionType, Transcript: t.Raw, CID: c.String(), LeafIndex: t.Ref.Leaf,
		TreeSize: blk.Checkpoint.Size, Hashes: hashes, Block: blk.Raw}
	if _, err := p.Verify(); err != nil {
		return nil, fmt.Errorf("%w: the store's proof of %s does not verify (run ledger verify to find the damage): %v", ledger.ErrCorrupt, c, err)
	}
	return p, nil
}

// ProveConsistency builds the consistency proof between v's checkpoints at
// heights from and to, checked like ProveInclusion's: ledger.ErrNotFound
// for a block the store does not hold, ledger.ErrCorrupt for a proof it
// cannot build from the nodes it holds, or that does not verify.
func ProveConsistency(s *ledger.Store, v keys.PublicKey, from, to uint64) (*proofs.ConsistencyProof, error) {
	if from > to {
		return nil, fmt.Errorf("consistency from height %d to %d: the first must not be above the second", from, to)
	}
	older, err := s.BlockAt(v, from)
	if err != nil {
		return nil, err
	}
	newer, err := s.BlockAt(v, to)
	if err != nil {
		return nil, err
	}
	var hashes []record.Hash
	if n1, n2 := older.Checkpoint.Size, newer.Checkpoint.Size; n1 > 0 && n1 < n2 {
		path, err := s.ConsistencyProof(v, n1, n2)
		if err != nil {
			return nil, fmt.Errorf("%w: the store's consistency proof of %s from height %d to %d: %v", ledger.ErrCorrupt, v, from, to, err)
		}
		if hashes, err = hashArrays(path); err != nil {
			return nil, err
		}
	}
	if hashes == nil {
		hashes = []record.Hash{}
	}
	p := &proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: older.Raw, Newer: newer.Raw, Hashes: hashes}
	if _, err := p.Verify(); err != nil {
		return nil, fmt.Errorf("%w: the store's consistency proof of %s from height %d to %d does not verify (run ledger verify to find the damage): %v", ledger.ErrCorrupt, v, from, to, err)
	}
	return p, nil
}

func hashArrays(hs [][]byte) ([]record.Hash, error) {
	out := make([]record.Hash, len(hs))
	for i, h := range hs {
		if len(h) != len(out[i]) {
			return nil, fmt.Errorf("proof hash %d has %d bytes", i, len(h))
		}
		copy(out[i][:], h)
	}
	return out, nil
}

// damaged is err, which the store returned for what it must hold (the
// head of a chain whose transcript it holds), as ErrCorrupt when it says
// the data is not found.
func damaged(err error) error {
	if errors.Is(err, ledger.ErrNotFound) {
		return fmt.Errorf("%w: %v", ledger.ErrCorrupt, err)
	}
	return err
}
