package ledger

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Head is a validator's latest stored block.
type Head struct {
	Block      record.BlockRef
	Checkpoint record.Checkpoint
	TimeMS     int64
	Anchor     record.Anchor
	// Equivocating is set once a fork proof of the validator is stored,
	// unless it is of format 1, which proves no equivocation.
	Equivocating bool
}

// StoredBlock is a block with its CID and exact bytes.
type StoredBlock struct {
	*record.Block
	CID cid.Cid
	Raw []byte
}

// Ref returns the block's BlockRef.
func (b StoredBlock) Ref() record.BlockRef {
	return record.BlockRef{Validator: b.Validator, Height: b.Height, CID: b.CID}
}

// TranscriptRef locates a transcript in its validator's log.
type TranscriptRef struct {
	Validator keys.PublicKey `json:"validator"`
	// Leaf is the transcript's index in the log (its Merkle leaf index).
	Leaf uint64 `json:"leaf"`
	// Height is the height of the block that links it.
	Height uint64  `json:"height"`
	CID    cid.Cid `json:"cid"`
}

// StoredTranscript is a transcript with its location and exact bytes.
type StoredTranscript struct {
	*record.Transcript
	Ref TranscriptRef
	Raw []byte
}

// StoredForkProof is a fork proof with its CID and exact bytes.
type StoredForkProof struct {
	*record.ForkProof
	CID cid.Cid
	Raw []byte
}

// withView runs fn on a view of durable data.
func (s *Store) withView(fn func(r reader) error) error {
	v, err := s.acquire()
	if err != nil {
		return err
	}
	defer s.release(v)
	return fn(v.snap)
}

// Object returns the stored bytes of any record (block, transcript,
// decision, fork proof) exactly as stored: it does not re-hash them, so an
// auditor sees tampering instead of an error. ErrNotFound if absent.
func (s *Store) Object(c cid.Cid) ([]byte, error) {
	var out []byte
	err := s.withView(func(r reader) error {
		var err error
		out, err = object(r, c)
		return err
	})
	return out, err
}

func object(r reader, c cid.Cid) ([]byte, error) {
	raw, ok, err := get(r, layout.ObjectKey(c.Bytes()))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("object %s: %w", c, ErrNotFound)
	}
	return raw, nil
}

// ReadObject calls fn with the bytes stored for c, exactly as stored and
// without copying them, for readers that only hash or decode them (the
// auditor reads a whole ledger this way). raw is valid only until fn
// returns and must not be modified. ErrNotFound if absent; otherwise fn's
// error.
func (s *Store) ReadObject(c cid.Cid, fn func(raw []byte) error) error {
	return s.withView(func(r reader) error {
		return getFunc(r, layout.ObjectKey(c.Bytes()), func(raw []byte, ok bool) error {
			if !ok {
				return fmt.Errorf("object %s: %w", c, ErrNotFound)
			}
			return fn(raw)
		})
	})
}

// ObjectReader reads objects as ReadObject does, through one Pebble
// iterator kept open from read to read, which spares each read the set-up
// of a lookup: for a goroutine that reads many objects (an audit worker).
// It sees the store as it was when created, and holds that view (the
// store's Close waits for it) until Close. Not safe for concurrent use.
type ObjectReader struct {
	s  *Store
	vw *view
	it *pebble.Iterator
}

// NewObjectReader returns a reader of the store's current view.
func (s *Store) NewObjectReader() (*ObjectReader, error) {
	vw, err := s.acquire()
	if err != nil {
		return nil, err
	}
	it, err := prefixIter(vw.snap, []byte{layout.Object}, []byte{layout.Object + 1})
	if err != nil {
		s.release(vw)
		return nil, err
	}
	return &ObjectReader{s: s, vw: vw, it: it}, nil
}

// Read calls fn with the bytes stored for c, as ReadObject does: valid
// only until fn returns.
func (r *ObjectReader) Read(c cid.Cid, fn func(raw []byte) error) error {
	key := layout.ObjectKey(c.Bytes())
	if !r.it.SeekGE(key) || !bytes.Equal(r.it.Key(), key) {
		if err := r.it.Error(); err != nil {
			return err
		}
		return fmt.Errorf("object %s: %w", c, ErrNotFound)
	}
	raw, err := r.it.ValueAndErr()
	if err != nil {
		return err
	}
	return fn(raw)
}

// Close releases the reader's iterator and view.
func (r *ObjectReader) Close() error {
	err := r.it.Close()
	r.s.release(r.vw)
	return err
}

// checkedObject returns an object's bytes after checking they hash to c.
func checkedObject(r reader, c cid.Cid) ([]byte, error) {
	raw, err := object(r, c)
	if err != nil {
		return nil, err
	}
	if err := codec.CheckCID(raw, c); err != nil {
		return nil, fmt.Errorf("%w: object %s: %v", ErrCorrupt, c, err)
	}
	return raw, nil
}

// Block returns the block with CID c, checked against c and decoded.
func (s *Store) Block(c cid.Cid) (StoredBlock, error) {
	var out StoredBlock
	err := s.withView(func(r reader) error {
		var err error
		out, err = blockByCID(r, c)
		return err
	})
	return out, err
}

func blockByCID(r reader, c cid.Cid) (StoredBlock, error) {
	raw, err := checkedObject(r, c)
	if err != nil {
		return StoredBlock{}, err
	}
	b, err := record.DecodeBlock(raw)
	if err != nil {
		return StoredBlock{}, fmt.Errorf("object %s is not a block: %w", c, err)
	}
	return StoredBlock{Block: b, CID: c, Raw: raw}, nil
}

// BlockAt returns v's block at height.
func (s *Store) BlockAt(v keys.PublicKey, height uint64) (StoredBlock, error) {
	var out StoredBlock
	err := s.withView(func(r reader) error {
		raw, ok, err := get(r, layout.BlockKey(v, height))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("block of %s at height %d: %w", v, height, ErrNotFound)
		}
		c, err := parseCID(raw)
		if err != nil {
			return fmt.Errorf("%w: height index of %s at %d: %v", ErrCorrupt, v, height, err)
		}
		out, err = blockByCID(r, c)
		return err
	})
	return out, err
}

// Head returns v's head, ErrNotFound if v has no block.
func (s *Store) Head(v keys.PublicKey) (Head, error) {
	var out Head
	err := s.withView(func(r reader) error {
		var err error
		out, err = head(r, v)
		return err
	})
	return out, err
}

func head(r reader, v keys.PublicKey) (Head, error) {
	raw, ok, err := get(r, layout.HeadKey(v))
	if err != nil {
		return Head{}, err
	}
	if !ok {
		return Head{}, fmt.Errorf("head of %s: %w", v, ErrNotFound)
	}
	c, err := parseCID(raw)
	if err != nil {
		return Head{}, fmt.Errorf("%w: head of %s: %v", ErrCorrupt, v, err)
	}
	b, err := blockByCID(r, c)
	if err != nil {
		return Head{}, err
	}
	eq, err := equivocating(r, v)
	if err != nil {
		return Head{}, err
	}
	return Head{Block: b.Ref(), Checkpoint: b.Checkpoint, TimeMS: b.TimeMS, Anchor: b.Anchor, Equivocating: eq}, nil
}

// equivocating reports whether v is marked ('e') for a fork proof other
// than one of format 1: that format proves no equivocation (its blocks
// name no network, so they may be an honest validator's blocks on two
// networks), and only a store written before block format 2 holds one,
// which it marked then. A marker whose proof cannot be read still counts:
// the store says so, and ForkProofs reports the proof as unreadable.
func equivocating(r reader, v keys.PublicKey) (bool, error) {
	pc, ok, err := get(r, layout.EquivocKey(v))
	if err != nil || !ok {
		return false, err
	}
	raw, ok, err := get(r, layout.ObjectKey(pc))
	switch {
	case err != nil:
		return false, err
	case !ok:
		return true, nil
	}
	var p record.ForkProof
	formatV1 := codec.Unmarshal(raw, &p) == nil && p.Format == record.ForkProofFormatV1
	return !formatV1, nil
}

// Heads streams every validator's head, ordered by public key.
func (s *Store) Heads() iter.Seq2[Head, error] {
	return scan(s, []byte{layout.Head}, func(r reader, k, _ []byte) (Head, error) {
		var v keys.PublicKey
		copy(v[:], k[1:])
		return head(r, v)
	})
}

// Blocks streams v's blocks from height from up to the head, in order.
func (s *Store) Blocks(v keys.PublicKey, from uint64) iter.Seq2[StoredBlock, error] {
	lower := layout.BlockKey(v, from)
	upper := layout.PrefixEnd(layout.Prefix(layout.Block, v[:]))
	return scanRange(s, lower, upper, func(r reader, k, val []byte) (StoredBlock, error) {
		c, err := parseCID(val)
		if err != nil {
			return StoredBlock{}, fmt.Errorf("%w: height index %x: %v", ErrCorrupt, k, err)
		}
		return blockByCID(r, c)
	})
}

// BlockRefs streams v's height index from height from up to the head:
// each block's height and CID, without reading the blocks (ReadObject
// does), so that an auditor sees their bytes exactly as stored.
func (s *Store) BlockRefs(v keys.PublicKey, from uint64) iter.Seq2[record.BlockRef, error] {
	lower := layout.BlockKey(v, from)
	upper := layout.PrefixEnd(layout.Prefix(layout.Block, v[:]))
	return scanRange(s, lower, upper, func(_ reader, k, val []byte) (record.BlockRef, error) {
		height, ok := layout.Uint64At(k, 1+len(v))
		if !ok || len(k) != 1+len(v)+8 {
			return record.BlockRef{}, fmt.Errorf("%w: height index key %x", ErrCorrupt, k)
		}
		c, err := parseCID(val)
		if err != nil {
			return record.BlockRef{}, fmt.Errorf("%w: height index of %s at %d: %v", ErrCorrupt, v, height, err)
		}
		return record.BlockRef{Validator: v, Height: height, CID: c}, nil
	})
}

// Transcript returns the transcript with CID c, checked and decoded, with
// its location. ErrNotFound if c is not in a validator's log, even when
// its bytes are stored (as a decision, which may be any record).
func (s *Store) Transcript(c cid.Cid) (StoredTranscript, error) {
	var out StoredTranscript
	err := s.withView(func(r reader) error {
		raw, err := checkedObject(r, c)
		if err != nil {
			return err
		}
		t, err := record.DecodeTranscript(raw)
		if err != nil {
			return fmt.Errorf("transcript %s: %w: the object is not a transcript (%v)", c, ErrNotFound, err)
		}
		// The challenge index locates it: one transcript per challenge,
		// miner and validator.
		ref, ok, err := transcriptOf(r, t.Validator, t.Miner.Hotkey, t.Challenge)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("transcript %s: %w in the log of %s", c, ErrNotFound, t.Validator)
		}
		if !ref.CID.Equals(c) {
			// Not damage: any record may be stored as a decision, a
			// transcript's bytes altered included (decisions are opaque);
			// the log's transcript of this challenge and miner is another.
			return fmt.Errorf("transcript %s: %w in the log of %s, which put challenge %s to miner %s in transcript %s", c, ErrNotFound, t.Validator, t.Challenge, t.Miner.Hotkey, ref.CID)
		}
		out = StoredTranscript{Transcript: t, Ref: ref, Raw: raw}
		return nil
	})
	return out, err
}

// TranscriptOf locates v's transcript of challenge id put to miner: a log
// holds at most one (spec/ledger.md). ErrNotFound if it holds none.
func (s *Store) TranscriptOf(v, miner keys.PublicKey, id challenge.ID) (TranscriptRef, error) {
	var out TranscriptRef
	err := s.withView(func(r reader) error {
		ref, ok, err := transcriptOf(r, v, miner, id)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("challenge %s with miner %s: %w in the log of %s", id, miner, ErrNotFound, v)
		}
		out = ref
		return nil
	})
	return out, err
}

// transcriptOf reads the challenge index's entry for (id, miner, v).
func transcriptOf(r reader, v, miner keys.PublicKey, id challenge.ID) (TranscriptRef, bool, error) {
	bin, err := id.MarshalBinary()
	if err != nil {
		return TranscriptRef{}, false, err
	}
	val, ok, err := get(r, layout.ChallengeKey(append(bin, miner[:]...), v))
	if err != nil || !ok {
		return TranscriptRef{}, false, err
	}
	ref, err := parseRef(v, val)
	return ref, err == nil, err
}

// Leaves streams v's log from leaf index from, in order.
func (s *Store) Leaves(v keys.PublicKey, from uint64) iter.Seq2[TranscriptRef, error] {
	lower := layout.LeafKey(v, from)
	upper := layout.PrefixEnd(layout.Prefix(layout.Leaf, v[:]))
	return scanRange(s, lower, upper, func(_ reader, _, val []byte) (TranscriptRef, error) {
		return parseRef(v, val)
	})
}

// TranscriptsByMiner streams the transcripts of miner in every validator's
// log, by validator then leaf.
func (s *Store) TranscriptsByMiner(miner keys.PublicKey) iter.Seq2[TranscriptRef, error] {
	return scan(s, layout.Prefix(layout.Miner, miner[:]), func(_ reader, k, val []byte) (TranscriptRef, error) {
		return parseRef(validatorAt(k, 33), val)
	})
}

// TranscriptsByDuel streams the transcripts of a duel, by validator then
// leaf.
func (s *Store) TranscriptsByDuel(duel record.DuelID) iter.Seq2[TranscriptRef, error] {
	return scan(s, layout.Prefix(layout.Duel, duel[:]), func(_ reader, k, val []byte) (TranscriptRef, error) {
		return parseRef(validatorAt(k, 33), val)
	})
}

// TranscriptsByChallenge streams every validator's transcripts of id, by
// miner then validator (at most one per validator and miner: a duel puts a
// challenge to both of its miners; another validator may run it too).
func (s *Store) TranscriptsByChallenge(id challenge.ID) iter.Seq2[TranscriptRef, error] {
	bin, err := id.MarshalBinary()
	if err != nil {
		return func(yield func(TranscriptRef, error) bool) { yield(TranscriptRef{}, err) }
	}
	return scan(s, layout.ChallengePrefix(bin), func(_ reader, k, val []byte) (TranscriptRef, error) {
		return parseRef(validatorAt(k, len(k)-32), val)
	})
}

// ForkProofs streams every stored fork proof, by validator then height.
// One of format 1, which only a store written before block format 2 holds,
// is read and verified like any other, but proves no equivocation
// (record.ForkProof.ProvesEquivocation): a caller that acts on evidence
// skips it. One that cannot be read is an *UnreadableForkProofError, and
// the stream goes on past it: one damaged proof must not hide the others.
func (s *Store) ForkProofs() iter.Seq2[StoredForkProof, error] {
	return scanGoingOn(s, []byte{layout.Fork}, func(r reader, k, _ []byte) (StoredForkProof, error) {
		return forkProofAt(r, k)
	})
}

// ForkProof returns the fork proof the store lists under CID c, read as
// ForkProofs reads it (an *UnreadableForkProofError if it cannot be), or
// ErrNotFound. It reads the index's keys and only the one proof they
// name, not every proof.
func (s *Store) ForkProof(c cid.Cid) (StoredForkProof, error) {
	want := c.Bytes()
	found := scanGoingOn(s, []byte{layout.Fork}, func(r reader, k, _ []byte) (*StoredForkProof, error) {
		if len(k) != 1+32+8+len(want) || !bytes.Equal(k[1+32+8:], want) {
			return nil, nil
		}
		p, err := forkProofAt(r, k)
		return &p, err
	})
	for p, err := range found {
		if err != nil {
			return StoredForkProof{}, err
		}
		if p != nil {
			return *p, nil
		}
	}
	return StoredForkProof{}, fmt.Errorf("fork proof %s: %w", c, ErrNotFound)
}

// forkProofAt reads the fork proof the index key k names.
func forkProofAt(r reader, k []byte) (StoredForkProof, error) {
	unreadable := func(c cid.Cid, err error) (StoredForkProof, error) {
		e := &UnreadableForkProofError{Validator: validatorAt(k, 1), CID: c, Err: err}
		if len(k) >= 1+32+8 {
			e.Height = binary.BigEndian.Uint64(k[1+32:])
		}
		return StoredForkProof{}, e
	}
	if len(k) <= 1+32+8 {
		return unreadable(cid.Undef, fmt.Errorf("%w: fork key %x", ErrCorrupt, k))
	}
	c, err := parseCID(k[1+32+8:])
	if err != nil {
		return unreadable(cid.Undef, fmt.Errorf("%w: fork key: %v", ErrCorrupt, err))
	}
	raw, err := checkedObject(r, c)
	if err != nil {
		return unreadable(c, err)
	}
	p, err := record.DecodeForkProof(raw)
	if err != nil {
		return unreadable(c, fmt.Errorf("%w: fork proof %s: %w", ErrCorrupt, c, err))
	}
	return StoredForkProof{ForkProof: p, CID: c, Raw: raw}, nil
}

// UnreadableForkProofError is a stored fork proof that cannot be read,
// with what its key says: whose it is, at which height, under which CID
// (undefined if the key does not say).
type UnreadableForkProofError struct {
	Validator keys.PublicKey
	Height    uint64
	CID       cid.Cid
	Err       error
}

func (e *UnreadableForkProofError) Error() string {
	return fmt.Sprintf("fork proof of %s at height %d: %v", e.Validator, e.Height, e.Err)
}

func (e *UnreadableForkProofError) Unwrap() error { return e.Err }

func validatorAt(k []byte, off int) keys.PublicKey {
	var v keys.PublicKey
	if off >= 0 && len(k) >= off+32 {
		copy(v[:], k[off:])
	}
	return v
}

func parseRef(v keys.PublicKey, val []byte) (TranscriptRef, error) {
	r, err := layout.ParseRef(val)
	if err != nil {
		return TranscriptRef{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	c, err := parseCID(r.CID)
	if err != nil {
		return TranscriptRef{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return TranscriptRef{Validator: v, Leaf: r.Leaf, Height: r.Height, CID: c}, nil
}

func scan[T any](s *Store, prefix []byte, parse func(r reader, k, v []byte) (T, error)) iter.Seq2[T, error] {
	return scanRange(s, prefix, layout.PrefixEnd(prefix), parse)
}

// scanRange streams parsed entries of [lower, upper) from one view, which
// it holds until the loop ends (a consumer that stops early releases it).
func scanRange[T any](s *Store, lower, upper []byte, parse func(r reader, k, v []byte) (T, error)) iter.Seq2[T, error] {
	return scanEntries(s, lower, upper, false, parse)
}

// scanGoingOn is scan that goes on past an entry parse fails on.
func scanGoingOn[T any](s *Store, prefix []byte, parse func(r reader, k, v []byte) (T, error)) iter.Seq2[T, error] {
	return scanEntries(s, prefix, layout.PrefixEnd(prefix), true, parse)
}

func scanEntries[T any](s *Store, lower, upper []byte, goOn bool, parse func(r reader, k, v []byte) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		vw, err := s.acquire()
		if err != nil {
			yield(zero, err)
			return
		}
		defer s.release(vw)
		it, err := prefixIter(vw.snap, lower, upper)
		if err != nil {
			yield(zero, err)
			return
		}
		defer it.Close()
		for ok := it.First(); ok; ok = it.Next() {
			out, err := parse(vw.snap, it.Key(), it.Value())
			if !yield(out, err) || err != nil && !goOn {
				return
			}
		}
		if err := it.Error(); err != nil {
			yield(zero, err)
		}
	}
}
