package ledger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// IndexKind names a transcript index: its table's prefix (spec/store.md).
type IndexKind byte

// The transcript indexes.
const (
	ChallengeIndex IndexKind = layout.Challenge
	MinerIndex     IndexKind = layout.Miner
	DuelIndex      IndexKind = layout.Duel
)

var indexKinds = []IndexKind{ChallengeIndex, MinerIndex, DuelIndex}

func (k IndexKind) String() string {
	switch k {
	case ChallengeIndex:
		return "challenge"
	case MinerIndex:
		return "miner"
	case DuelIndex:
		return "duel"
	}
	return fmt.Sprintf("index %q", byte(k))
}

// IndexEntry is an entry of a transcript index.
type IndexEntry struct {
	Kind       IndexKind
	Key, Value []byte
}

// IndexedTranscript is what a transcript's entries in the store's indexes
// (spec/store.md: 'c', 'm' and 'd' keys) are derived from: its place in
// its validator's log and the fields the indexes are keyed by.
type IndexedTranscript struct {
	Ref       TranscriptRef
	Miner     keys.PublicKey
	Challenge challenge.ID
	Duel      record.DuelID
}

// Entries returns the entries the store writes for t, as it writes them:
// its challenge's and its miner's and, with a duel ID, its duel's, each
// holding t's Ref.
func (t IndexedTranscript) Entries() ([]IndexEntry, error) {
	bin, err := t.Challenge.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("challenge %s: %w", t.Challenge, err)
	}
	v, leaf := t.Ref.Validator, t.Ref.Leaf
	ref := layout.Ref{Leaf: leaf, Height: t.Ref.Height, CID: t.Ref.CID.Bytes()}.Append(nil)
	out := []IndexEntry{
		{ChallengeIndex, layout.ChallengeKey(append(bin, t.Miner[:]...), v), ref},
		{MinerIndex, layout.MinerKey(t.Miner, v, leaf), ref},
	}
	if !t.Duel.IsZero() {
		out = append(out, IndexEntry{DuelIndex, layout.DuelKey(t.Duel, v, leaf), ref})
	}
	return out, nil
}

// IndexReader reads the store's transcript indexes, for an auditor that
// holds them to the chains it verifies (spec/verify.md, B10): no signed
// block commits to them, yet a miner's view (TranscriptsByMiner), a
// duel's, and the uniqueness of challenges in later blocks are read from
// them, so a damaged entry is otherwise found by nobody.
//
// It keeps one iterator per index, so that lookups moving forward through
// an index cost a step rather than a seek from the top. It sees the store
// as it was when created and holds that view until Close. Not safe for
// concurrent use.
type IndexReader struct {
	s     *Store
	vw    *view
	iters map[IndexKind]*pebble.Iterator
}

// NewIndexReader returns a reader of the store's indexes in its current
// view.
func (s *Store) NewIndexReader() (*IndexReader, error) {
	vw, err := s.acquire()
	if err != nil {
		return nil, err
	}
	r := &IndexReader{s: s, vw: vw, iters: map[IndexKind]*pebble.Iterator{}}
	for _, k := range indexKinds {
		it, err := prefixIter(vw.snap, []byte{byte(k)}, []byte{byte(k) + 1})
		if err != nil {
			r.Close()
			return nil, err
		}
		r.iters[k] = it
	}
	return r, nil
}

// Check returns "" when each index entry the store writes for t (its
// Entries) is stored and holds t's place, or else a description of the
// first entry that does not. The error is for an index that cannot be
// read.
func (r *IndexReader) Check(t IndexedTranscript) (string, error) {
	entries, err := t.Entries()
	if err != nil {
		return "", err
	}
	v, leaf := t.Ref.Validator, t.Ref.Leaf
	for _, e := range entries {
		it := r.iters[e.Kind]
		if !it.SeekGE(e.Key) || !bytes.Equal(it.Key(), e.Key) {
			if err := it.Error(); err != nil {
				return "", err
			}
			return fmt.Sprintf("the store has no %s in validator %s's log, leaf %d", t.entryName(e.Kind), v, leaf), nil
		}
		val, err := it.ValueAndErr()
		if err != nil {
			return "", err
		}
		if !bytes.Equal(val, e.Value) {
			return fmt.Sprintf("the store's %s in validator %s's log, leaf %d, holds %s, not the transcript's place (%s)", t.entryName(e.Kind), v, leaf, describeRef(val), describeRef(e.Value)), nil
		}
	}
	return "", nil
}

// entryName names t's entry in an index, for a report.
func (t IndexedTranscript) entryName(k IndexKind) string {
	switch k {
	case ChallengeIndex:
		return fmt.Sprintf("challenge index's entry for challenge %s put to miner %s", t.Challenge, t.Miner)
	case MinerIndex:
		return fmt.Sprintf("miner index's entry for miner %s", t.Miner)
	default:
		return fmt.Sprintf("duel index's entry for duel %s", t.Duel)
	}
}

// describeRef names a stored Ref's fields, or says it does not parse.
func describeRef(val []byte) string {
	ref, err := layout.ParseRef(val)
	if err != nil {
		return fmt.Sprintf("%x, which is no transcript's place", val)
	}
	c, err := parseCID(ref.CID)
	if err != nil {
		return fmt.Sprintf("leaf %d at height %d, with %x, which is no CID", ref.Leaf, ref.Height, ref.CID)
	}
	return fmt.Sprintf("leaf %d at height %d, transcript %s", ref.Leaf, ref.Height, c)
}

// Close releases the reader's iterators and view.
func (r *IndexReader) Close() error {
	var errs []error
	for _, it := range r.iters {
		errs = append(errs, it.Close())
	}
	r.iters = nil
	r.s.release(r.vw)
	return errors.Join(errs...)
}

// ScannedEntry is an entry of a transcript index as ScanIndexes finds it.
type ScannedEntry struct {
	IndexEntry
	// Validator is the validator the key names, whose log the entry
	// indexes; Leaf is the leaf its value names, ok false if the value is
	// no Ref.
	Validator keys.PublicKey
	Leaf      uint64
	LeafOK    bool
	// Malformed is set for a key of the index that is no entry's (of the
	// wrong length): the other fields but Kind, Key and Value are unset.
	Malformed bool
}

// ScanIndexes calls fn with every entry of the transcript indexes, of only
// if it is set, in one sequential scan of each index: an auditor's way of
// reading every entry without a lookup each. Key and Value are valid only
// during the call. It returns the heads of the chains (only's) in the view
// it scanned, in which the entries are those of the logs that end there.
func (s *Store) ScanIndexes(only *keys.PublicKey, fn func(ScannedEntry) error) (heads map[keys.PublicKey]cid.Cid, err error) {
	heads = map[keys.PublicKey]cid.Cid{}
	err = s.withView(func(rd reader) error {
		for _, k := range indexKinds {
			if err := scanIndex(rd, k, only, fn); err != nil {
				return err
			}
		}
		it, err := prefixIter(rd, []byte{layout.Head}, []byte{layout.Head + 1})
		if err != nil {
			return err
		}
		for valid := it.First(); valid; valid = it.Next() {
			k := it.Key()
			if len(k) != 1+32 || (only != nil && keys.PublicKey(k[1:]) != *only) {
				continue // Open refuses a store with such a key
			}
			v := keys.PublicKey(k[1:])
			if heads[v], err = parseCID(it.Value()); err != nil {
				it.Close()
				return fmt.Errorf("%w: head of %s: %v", ErrCorrupt, v, err)
			}
		}
		return errors.Join(it.Error(), it.Close())
	})
	return heads, err
}

func scanIndex(rd reader, kind IndexKind, only *keys.PublicKey, fn func(ScannedEntry) error) error {
	it, err := prefixIter(rd, []byte{byte(kind)}, []byte{byte(kind) + 1})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; valid = it.Next() {
		e := ScannedEntry{IndexEntry: IndexEntry{Kind: kind, Key: it.Key()}}
		vk := kind.validatorOf(e.Key)
		if vk != nil {
			e.Validator = keys.PublicKey(vk)
			if only != nil && e.Validator != *only {
				continue // another validator's: its value is not read
			}
		}
		if e.Value, err = it.ValueAndErr(); err != nil {
			it.Close()
			return err
		}
		if vk == nil {
			e.Malformed = true
		} else if ref, err := layout.ParseRef(e.Value); err == nil {
			e.Leaf, e.LeafOK = ref.Leaf, true
		}
		if err := fn(e); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// LeafOf is the leaf a key of the miner or duel index names; ok false for
// a key of the challenge index, which names none, or no entry's key.
func (k IndexKind) LeafOf(key []byte) (leaf uint64, ok bool) {
	if k == ChallengeIndex || k.validatorOf(key) == nil {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[65:]), true
}

// validatorOf is the validator a key of the index names, nil if the key
// is no entry's. A challenge entry is 'c', the challenge's binary form
// (its env name's length, the name, BE16 version, the seed), the miner,
// the validator; a miner or duel entry the prefix, the miner's hotkey or
// duel ID, the validator, BE64(leaf).
func (k IndexKind) validatorOf(key []byte) []byte {
	if k == ChallengeIndex {
		if len(key) < 2 || len(key) != 1+1+int(key[1])+2+challenge.SeedSize+32+32 {
			return nil
		}
		return key[len(key)-32:]
	}
	if len(key) != 1+32+32+8 {
		return nil
	}
	return key[33:65]
}
