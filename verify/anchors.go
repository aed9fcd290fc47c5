package verify

import (
	"encoding/binary"
	"hash/maphash"
	"sort"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// AnchorSet remembers the chain anchors each validator's blocks recorded:
// step T5 accepts a format-2 seed only from one of them
// (spec/verify.md#seeds). A chain records a new anchor at most once per
// chain block, so the set grows with the ledger; a ChallengeSet that is
// also an AnchorSet (MemSet, DiskSet) keeps it next to the challenges,
// and for any other the verifier keeps it in memory.
type AnchorSet interface {
	// AddAnchor records that a block of v's chain records a.
	AddAnchor(v keys.PublicKey, a record.Anchor) error
	// HasAnchor reports whether AddAnchor(v, a) was called.
	HasAnchor(v keys.PublicKey, a record.Anchor) (bool, error)
}

// anchorKey is v || BE64 number || hash: 72 bytes, where a challenge's
// key (appendSetKey) is at least 64 + 36, so the two share a set safely.
func anchorKey(v keys.PublicKey, a record.Anchor) []byte {
	return appendAnchorKey(make([]byte, 0, 72), v, a)
}

func appendAnchorKey(k []byte, v keys.PublicKey, a record.Anchor) []byte {
	k = append(k, v[:]...)
	k = binary.BigEndian.AppendUint64(k, a.Number)
	return append(k, a.Hash[:]...)
}

// AddAnchor implements AnchorSet.
func (m MemSet) AddAnchor(v keys.PublicKey, a record.Anchor) error {
	m[string(anchorKey(v, a))] = Location{}
	return nil
}

// HasAnchor implements AnchorSet.
func (m MemSet) HasAnchor(v keys.PublicKey, a record.Anchor) (bool, error) {
	_, ok := m[string(anchorKey(v, a))]
	return ok, nil
}

// AddAnchor implements AnchorSet.
func (d *DiskSet) AddAnchor(v keys.PublicKey, a record.Anchor) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _, err := d.add(appendAnchorKey(d.key[:0], v, a), Location{})
	return err
}

// HasAnchor implements AnchorSet.
func (d *DiskSet) HasAnchor(v keys.PublicKey, a record.Anchor) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := appendAnchorKey(d.key[:0], v, a)
	_, ok, err := d.lookup(k, maphash.Bytes(d.seed, k))
	return ok, err
}

// memAnchors is the AnchorSet of a verifier whose ChallengeSet is none.
type memAnchors map[string]struct{}

func (m memAnchors) AddAnchor(v keys.PublicKey, a record.Anchor) error {
	m[string(anchorKey(v, a))] = struct{}{}
	return nil
}

func (m memAnchors) HasAnchor(v keys.PublicKey, a record.Anchor) (bool, error) {
	_, ok := m[string(anchorKey(v, a))]
	return ok, nil
}

// storeAnchors is Start.Anchors for a chain of s audited from height:
// whether one of v's blocks below height records a. Anchor numbers never
// decrease along a chain, so a binary search finds the first block at a's
// number and a scan the others at that number (as many as the validator
// made while the chain stood at one block). The blocks are the store's,
// not verified: as the rest of the state before height (spec/verify.md).
func storeAnchors(s *ledger.Store, v keys.PublicKey, height uint64) func(record.Anchor) (bool, error) {
	return func(a record.Anchor) (bool, error) {
		var err error
		lo := sort.Search(int(height), func(h int) bool {
			if err != nil {
				return true
			}
			b, e := s.BlockAt(v, uint64(h))
			if e != nil {
				err = e
				return true
			}
			return b.Anchor.Number >= a.Number
		})
		if err != nil {
			return false, err
		}
		for h := uint64(lo); h < height; h++ {
			b, err := s.BlockAt(v, h)
			if err != nil {
				return false, err
			}
			if b.Anchor.Number != a.Number {
				return false, nil
			}
			if b.Anchor.Hash == a.Hash {
				return true, nil
			}
		}
		return false, nil
	}
}
