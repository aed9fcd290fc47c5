package ledger

import (
	"bytes"
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// loadChains reads every head pointer and checks it against the blocks,
// leaves and Merkle nodes it implies, so a store whose pointers and data
// disagree (a bug, a tampered or half-copied directory) fails to open
// instead of growing a second history. Cost: O(validators * log size).
func (s *Store) loadChains() error {
	iter, err := prefixIter(s.db, []byte{layout.Head}, []byte{layout.Head + 1})
	if err != nil {
		return err
	}
	defer iter.Close()
	for iter.First(); iter.Valid(); iter.Next() {
		k := iter.Key()
		if len(k) != 33 {
			return fmt.Errorf("%w: head key %x has the wrong length", ErrCorrupt, k)
		}
		var v keys.PublicKey
		copy(v[:], k[1:])
		c, err := parseCID(iter.Value())
		if err != nil {
			return fmt.Errorf("%w: head of validator %s: %v", ErrCorrupt, v, err)
		}
		ch, err := s.checkHead(v, c)
		if err != nil {
			return fmt.Errorf("%w: validator %s: %v", ErrCorrupt, v, err)
		}
		s.chains[v] = ch
	}
	if err := iter.Error(); err != nil {
		return err
	}
	return s.checkOrphanBlocks()
}

func (s *Store) checkHead(v keys.PublicKey, headCID cid.Cid) (*chain, error) {
	raw, ok, err := get(s.db, layout.ObjectKey(headCID.Bytes()))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("head pointer names block %s, which is not stored", headCID)
	}
	if err := codec.CheckCID(raw, headCID); err != nil {
		return nil, fmt.Errorf("head block %s: %v", headCID, err)
	}
	blk, err := record.DecodeBlock(raw)
	if err != nil {
		return nil, fmt.Errorf("head block %s: %v", headCID, err)
	}
	if blk.Validator != v {
		return nil, fmt.Errorf("head pointer names block %s of validator %s", headCID, blk.Validator)
	}
	at, ok, err := get(s.db, layout.BlockKey(v, blk.Height))
	if err != nil {
		return nil, err
	}
	if !ok || !bytes.Equal(at, headCID.Bytes()) {
		return nil, fmt.Errorf("head pointer names block %s at height %d, but the height index holds %s there", headCID, blk.Height, describeCID(at, ok))
	}
	if above, err := has(s.db, layout.BlockKey(v, blk.Height+1)); err != nil || above {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("head pointer names height %d, but a block at height %d is stored", blk.Height, blk.Height+1)
	}
	size := blk.Checkpoint.Size
	if size > 0 {
		if ok, err := has(s.db, layout.LeafKey(v, size-1)); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("head checkpoint has %d transcripts, but leaf %d is not stored", size, size-1)
		}
	}
	if extra, err := has(s.db, layout.LeafKey(v, size)); err != nil || extra {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("head checkpoint has %d transcripts, but leaf %d is stored", size, size)
	}
	tree, err := treeAt(s.db, v, size)
	if err != nil {
		return nil, err
	}
	if got := tree.Root(); got != blk.Checkpoint.Root {
		return nil, fmt.Errorf("stored Merkle nodes give root %s for size %d, head block %s says %s", got, size, headCID, blk.Checkpoint.Root)
	}
	return &chain{head: blk, ref: record.BlockRef{Validator: v, Height: blk.Height, CID: headCID}, tree: tree}, nil
}

// checkOrphanBlocks finds validators with blocks but no head pointer.
func (s *Store) checkOrphanBlocks() error {
	iter, err := prefixIter(s.db, []byte{layout.Block}, []byte{layout.Block + 1})
	if err != nil {
		return err
	}
	defer iter.Close()
	for ok := iter.First(); ok; {
		k := iter.Key()
		if len(k) != 1+32+8 {
			return fmt.Errorf("%w: block key %x has the wrong length", ErrCorrupt, k)
		}
		var v keys.PublicKey
		copy(v[:], k[1:33])
		if _, known := s.chains[v]; !known {
			return fmt.Errorf("%w: validator %s has blocks but no head pointer", ErrCorrupt, v)
		}
		ok = iter.SeekGE(layout.PrefixEnd(k[:33]))
	}
	return iter.Error()
}

// treeAt rebuilds the compact range [0, size) of v's log from stored nodes.
func treeAt(r reader, v keys.PublicKey, size uint64) (*record.Tree, error) {
	ids := compact.RangeNodes(0, size, nil)
	hashes := make([]record.Hash, len(ids))
	for i, id := range ids {
		h, err := node(r, v, id)
		if err != nil {
			return nil, err
		}
		hashes[i] = h
	}
	return record.TreeFromFrontier(size, hashes)
}

func node(r reader, v keys.PublicKey, id compact.NodeID) (record.Hash, error) {
	var h record.Hash
	if id.Level == 0 {
		val, ok, err := get(r, layout.LeafKey(v, id.Index))
		if err != nil {
			return h, err
		}
		if !ok {
			return h, fmt.Errorf("leaf %d: %w", id.Index, ErrNotFound)
		}
		ref, err := parseRef(v, val)
		if err != nil {
			return h, err
		}
		return record.LeafHash(ref.CID), nil
	}
	val, ok, err := get(r, layout.NodeKey(v, id.Level, id.Index))
	if err != nil {
		return h, err
	}
	if !ok {
		return h, fmt.Errorf("merkle node level %d index %d: %w", id.Level, id.Index, ErrNotFound)
	}
	if len(val) != len(h) {
		return h, fmt.Errorf("%w: merkle node level %d index %d has %d bytes", ErrCorrupt, id.Level, id.Index, len(val))
	}
	copy(h[:], val)
	return h, nil
}

func parseCID(b []byte) (cid.Cid, error) {
	n, c, err := cid.CidFromBytes(b)
	if err != nil {
		return cid.Undef, fmt.Errorf("stored CID %x: %v", b, err)
	}
	if n != len(b) {
		return cid.Undef, fmt.Errorf("stored CID %x: %d trailing bytes", b, len(b)-n)
	}
	return c, nil
}

func describeCID(b []byte, ok bool) string {
	if !ok {
		return "nothing"
	}
	c, err := parseCID(b)
	if err != nil {
		return fmt.Sprintf("%x", b)
	}
	return c.String()
}
