// Package ledgertest helps test code that reads or verifies a ledger store:
// a raw writer that overwrites stored values behind the store's back so
// tests can tamper (the store itself is append-only and has no such API).
// Package recordtest has the sample transcripts to fill a store with.
//
// The raw writer opens the Pebble directory itself, so the store must be
// closed while it runs.
package ledgertest

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Set overwrites (or creates) key in the closed store at dir.
func Set(dir string, key, value []byte) error {
	return rawWrite(dir, func(b *pebble.Batch) error { return b.Set(key, value, nil) })
}

// Delete removes key from the closed store at dir.
func Delete(dir string, key []byte) error {
	return rawWrite(dir, func(b *pebble.Batch) error { return b.Delete(key, nil) })
}

// OverwriteObject replaces the stored bytes of object c.
func OverwriteObject(dir string, c cid.Cid, data []byte) error {
	return Set(dir, layout.ObjectKey(c.Bytes()), data)
}

// SetHead points v's head at c.
func SetHead(dir string, v keys.PublicKey, c cid.Cid) error {
	return Set(dir, layout.HeadKey(v), c.Bytes())
}

// SetBlockAt points v's height index at c.
func SetBlockAt(dir string, v keys.PublicKey, height uint64, c cid.Cid) error {
	return Set(dir, layout.BlockKey(v, height), c.Bytes())
}

// SetNode overwrites a stored Merkle node of v's log. Level 0 (leaf hashes)
// is not stored: the store derives it from the leaf table (LeafKey).
func SetNode(dir string, v keys.PublicKey, level uint, index uint64, h record.Hash) error {
	return Set(dir, layout.NodeKey(v, level, index), h[:])
}

// Get reads key from the closed store at dir (nil, false if absent).
func Get(dir string, key []byte) ([]byte, bool, error) {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		return nil, false, err
	}
	defer db.Close()
	v, closer, err := db.Get(key)
	if err == pebble.ErrNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// Keys of the store layout (spec/store.md), for Set, Delete and Get.
var (
	HeadKey   = func(v keys.PublicKey) []byte { return layout.HeadKey(v) }
	BlockKey  = func(v keys.PublicKey, h uint64) []byte { return layout.BlockKey(v, h) }
	LeafKey   = func(v keys.PublicKey, i uint64) []byte { return layout.LeafKey(v, i) }
	NodeKey   = func(v keys.PublicKey, level uint, i uint64) []byte { return layout.NodeKey(v, level, i) }
	ObjectKey = func(c cid.Cid) []byte { return layout.ObjectKey(c.Bytes()) }
	MinerKey  = func(m, v keys.PublicKey, leaf uint64) []byte { return layout.MinerKey(m, v, leaf) }
	DuelKey   = func(d record.DuelID, v keys.PublicKey, leaf uint64) []byte { return layout.DuelKey(d, v, leaf) }
)

// ChallengeKey is the challenge index's key of v's transcript of id put to
// miner m.
func ChallengeKey(id challenge.ID, m, v keys.PublicKey) []byte {
	bin, err := id.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return layout.ChallengeKey(append(bin, m[:]...), v)
}

func rawWrite(dir string, op func(*pebble.Batch) error) error {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}, ErrorIfNotExists: true})
	if err != nil {
		return fmt.Errorf("ledgertest: open %s: %w", dir, err)
	}
	b := db.NewBatch()
	if err := op(b); err != nil {
		db.Close()
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

type quiet struct{}

func (quiet) Infof(string, ...any)           {}
func (quiet) Errorf(string, ...any)          {}
func (quiet) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
