package ledger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// NodeReader reads the Merkle nodes stored for one validator's log
// (spec/store.md, 'n' keys), for an auditor that holds them to the log it
// recomputes from the chain's blocks (spec/verify.md, B9): open checks
// only the nodes of the head's frontier, and proofs read the others, so a
// damaged one is otherwise found by the first proof that needs it.
//
// It keeps one iterator per level, so reads at a level in increasing index
// order, the order in which a log completes its nodes, cost a step of an
// iterator rather than a lookup each. It sees the store as it was when
// created and holds that view until Close. Not safe for concurrent use.
type NodeReader struct {
	s      *Store
	vw     *view
	v      keys.PublicKey
	levels map[uint]*pebble.Iterator
	leaves *pebble.Iterator // the leaf table's, once Leaf is called
}

// NewNodeReader returns a reader of v's stored Merkle nodes in the store's
// current view.
func (s *Store) NewNodeReader(v keys.PublicKey) (*NodeReader, error) {
	vw, err := s.acquire()
	if err != nil {
		return nil, err
	}
	return &NodeReader{s: s, vw: vw, v: v, levels: map[uint]*pebble.Iterator{}}, nil
}

// Node returns the node stored at level (1 or more: leaf hashes are not
// stored) and index, ok false if none is. A stored value that is not a
// hash is ErrCorrupt.
func (r *NodeReader) Node(level uint, index uint64) (h record.Hash, ok bool, err error) {
	it, err := r.level(level)
	if err != nil {
		return h, false, err
	}
	key := layout.NodeKey(r.v, level, index)
	if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
		return h, false, it.Error()
	}
	val, err := it.ValueAndErr()
	if err != nil {
		return h, false, err
	}
	if len(val) != len(h) {
		return h, false, fmt.Errorf("%w: merkle node level %d index %d of %s has %d bytes", ErrCorrupt, level, index, r.v, len(val))
	}
	copy(h[:], val)
	return h, true, nil
}

// Leaf returns the leaf table's entry at index (spec/store.md, 'l' keys):
// the place in the log it records (proofs take the leaf's hash, level 0,
// from its CID: record.LeafHash); ok false if the table has no entry
// there. An entry that does not parse is ErrCorrupt.
func (r *NodeReader) Leaf(index uint64) (ref TranscriptRef, ok bool, err error) {
	if r.leaves == nil {
		prefix := layout.Prefix(layout.Leaf, r.v[:])
		if r.leaves, err = prefixIter(r.vw.snap, prefix, layout.PrefixEnd(prefix)); err != nil {
			return ref, false, err
		}
	}
	key := layout.LeafKey(r.v, index)
	if !r.leaves.SeekGE(key) || !bytes.Equal(r.leaves.Key(), key) {
		return ref, false, r.leaves.Error()
	}
	val, err := r.leaves.ValueAndErr()
	if err != nil {
		return ref, false, err
	}
	if ref, err = parseRef(r.v, val); err != nil {
		return ref, false, fmt.Errorf("leaf %d of %s: %w", index, r.v, err)
	}
	return ref, true, nil
}

func (r *NodeReader) level(level uint) (*pebble.Iterator, error) {
	if it, ok := r.levels[level]; ok {
		return it, nil
	}
	if level == 0 || level > 255 {
		return nil, fmt.Errorf("merkle node level %d: levels 1 to 255 are stored", level)
	}
	prefix := layout.Prefix(layout.Node, r.v[:], []byte{byte(level)})
	it, err := prefixIter(r.vw.snap, prefix, layout.PrefixEnd(prefix))
	if err != nil {
		return nil, err
	}
	r.levels[level] = it
	return it, nil
}

// Stray describes the first key stored among v's Merkle nodes that a log
// of size transcripts has not written: a node of a subtree not complete at
// that size, or a key of the node table that is no node's (level 0, or the
// wrong length); "" if there is none. Its cost is a few seeks per level
// stored, not a read of every node.
func (r *NodeReader) Stray(size uint64) (string, error) {
	if stray, err := r.strayLeaf(size); stray != "" || err != nil {
		return stray, err
	}
	prefix := layout.Prefix(layout.Node, r.v[:])
	it, err := prefixIter(r.vw.snap, prefix, layout.PrefixEnd(prefix))
	if err != nil {
		return "", err
	}
	defer it.Close()
	for valid := it.First(); valid; {
		k := it.Key()
		if len(k) != len(prefix)+1+8 || k[len(prefix)] == 0 {
			return fmt.Sprintf("key %x, which is no Merkle node's", k), nil
		}
		level := uint(k[len(prefix)])
		complete := uint64(0) // the nodes a log of size has at level
		if level < 64 {
			complete = size >> level
		}
		if index := binary.BigEndian.Uint64(k[len(prefix)+1:]); index >= complete {
			return fmt.Sprintf("a Merkle node at level %d index %d, of a subtree a log of %d transcripts has not completed", level, index, size), nil
		}
		// Past the nodes the log has at this level, to the next level.
		valid = it.SeekGE(layout.NodeKey(r.v, level, complete))
	}
	return "", it.Error()
}

// strayLeaf describes the first entry of v's leaf table past a log of size
// transcripts, "" if there is none.
func (r *NodeReader) strayLeaf(size uint64) (string, error) {
	prefix := layout.Prefix(layout.Leaf, r.v[:])
	it, err := prefixIter(r.vw.snap, layout.LeafKey(r.v, size), layout.PrefixEnd(prefix))
	if err != nil {
		return "", err
	}
	defer it.Close()
	if !it.First() {
		return "", it.Error()
	}
	k := it.Key()
	if len(k) != len(prefix)+8 {
		return fmt.Sprintf("key %x, which is no leaf's", k), nil
	}
	return fmt.Sprintf("a leaf at index %d", binary.BigEndian.Uint64(k[len(prefix):])), nil
}

// Head returns the CID of v's head block in the reader's view, cid.Undef
// if the store has no chain of v: the log whose nodes the reader sees.
func (r *NodeReader) Head() (cid.Cid, error) {
	raw, ok, err := get(r.vw.snap, layout.HeadKey(r.v))
	if err != nil || !ok {
		return cid.Undef, err
	}
	c, err := parseCID(raw)
	if err != nil {
		return cid.Undef, fmt.Errorf("%w: head of %s: %v", ErrCorrupt, r.v, err)
	}
	return c, nil
}

// Close releases the reader's iterators and view.
func (r *NodeReader) Close() error {
	var errs []error
	for _, it := range r.levels {
		errs = append(errs, it.Close())
	}
	if r.leaves != nil {
		errs = append(errs, r.leaves.Close())
	}
	r.levels, r.leaves = nil, nil
	r.s.release(r.vw)
	return errors.Join(errs...)
}
