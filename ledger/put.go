package ledger

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/internal/layout"
	"github.com/affine-ledger/ledger/ledger/record"
)

// PutResult says what Put did with a valid block.
type PutResult struct {
	Block record.BlockRef
	// Stored is false when the same block was already stored (Put is
	// idempotent). Either way the block is durable when Put returns.
	Stored bool
}

// Put checks a peer's signed block and the objects it links and stores them
// in one synced batch. objects must hold every transcript and decision the
// block links, keyed by CID; other entries are ignored.
//
// A block is stored only if: it is a well-formed block (DecodeBlock); its
// signature verifies; it is the next block of its validator's stored chain
// (height = head+1, prev = the head's CID, time and anchor number not
// before the parent's) or the first (height 0), and not the chain of a
// validator this store has a running Appender for (only that appender
// extends it; another block there is the same key used elsewhere); every linked object is
// supplied and hashes to its link; every transcript is well-formed, names
// the block's validator and uses a challenge ID the validator's log has not
// used with the same miner; every decision passes the decision check; and its checkpoint is the
// parent's log extended by its transcripts (size and root).
//
// Errors: ErrInvalidBlock (with a *BlockError naming the reason) for a block
// that must not be stored; *MissingParentError (ErrMissingParent) when the
// parent is not stored yet, nothing being kept aside: the caller backfills
// and puts again in order; *EquivocationError (ErrEquivocation) when a
// different validly signed block of the same validator and height is
// stored, in which case the new block is not written but a fork proof
// holding both is.
func (s *Store) Put(block []byte, objects map[cid.Cid][]byte) (PutResult, error) {
	blk, err := record.DecodeBlock(block)
	if err != nil {
		return PutResult{}, fmt.Errorf("put: %w: %w", ErrInvalidBlock, err)
	}
	c := codec.Sum(block)
	if err := blk.VerifySignature(); err != nil {
		return PutResult{}, refused(blk, c, record.ErrBadSignature, "signature does not verify under the validator's hotkey")
	}
	ref := record.BlockRef{Validator: blk.Validator, Height: blk.Height, CID: c}

	s.writeMu.Lock()
	res, f, err := s.putLocked(blk, block, c, ref, objects)
	s.writeMu.Unlock()
	if f != nil {
		// Wait for durability outside the lock, so the next write can be
		// applied meanwhile and share the fsync.
		if serr := s.settle(f); serr != nil {
			return PutResult{}, serr
		}
	}
	if err == nil && !res.Stored {
		// Already applied, perhaps by a write still waiting for its
		// fsync: answer only once it is durable, like any other Put.
		if werr := s.waitVisible(ref); werr != nil {
			return PutResult{}, werr
		}
	}
	var eq *EquivocationError
	if f == nil && errors.As(err, &eq) {
		// The fork proof was written before, perhaps by a Put still
		// waiting for its fsync: the caller reads the proof next.
		if werr := s.waitKey(layout.ForkKey(eq.Validator, eq.Height, eq.Proof.Bytes()), nil); werr != nil {
			return PutResult{}, werr
		}
	}
	return res, err
}

// putLocked does Put's work under writeMu. A non-nil inflight must be
// settled, whatever the error (a fork proof is written and then reported
// as ErrEquivocation).
func (s *Store) putLocked(blk *record.Block, block []byte, c cid.Cid, ref record.BlockRef, objects map[cid.Cid][]byte) (PutResult, *inflight, error) {
	if s.broken != nil {
		return PutResult{}, nil, fmt.Errorf("put %s: %w", ref, s.broken)
	}
	// Before the height check: a block of another network at a stored
	// height is no equivocation.
	bind, err := s.checkNetwork(blk, c)
	if err != nil {
		return PutResult{}, nil, err
	}
	ch := s.chainOf(blk.Validator)
	if !ch.empty && blk.Height <= ch.head.Height {
		return s.putKnownHeight(blk, block, ref)
	}
	// Before the parent check: the network layer backfills a missing
	// parent, and a local chain's blocks from elsewhere are refused
	// whatever their parents.
	if _, mine := s.local[blk.Validator]; mine {
		f, err := s.halt(nil, blk.Validator, blk.Height, c)
		if err != nil {
			return PutResult{}, nil, err
		}
		return PutResult{}, f, fmt.Errorf("put %s: %w: a block it did not make cannot extend it; signing is halted", ref, ErrLocalChain)
	}
	if ch.empty && blk.Height > 0 {
		return PutResult{}, nil, &MissingParentError{Validator: blk.Validator, Height: blk.Height}
	}
	if !ch.empty {
		if blk.Height > ch.head.Height+1 {
			return PutResult{}, nil, &MissingParentError{Validator: blk.Validator, Height: blk.Height, Have: ch.head.Height, HaveAny: true}
		}
		if !blk.Prev.Cid.Equals(ch.ref.CID) {
			return PutResult{}, nil, refused(blk, c, ErrBadParent, "prev links %s, the stored block at height %d is %s", blk.Prev.Cid, ch.head.Height, ch.ref.CID)
		}
		if blk.TimeMS < ch.head.TimeMS {
			return PutResult{}, nil, refused(blk, c, ErrBadParent, "time %d ms is before the parent's %d ms", blk.TimeMS, ch.head.TimeMS)
		}
		if blk.Anchor.Number < ch.head.Anchor.Number {
			return PutResult{}, nil, refused(blk, c, ErrBadParent, "anchor %d is older than the parent's %d", blk.Anchor.Number, ch.head.Anchor.Number)
		}
	}
	leaves, decisions, err := s.linkedObjects(blk, c, objects)
	if err != nil {
		return PutResult{}, nil, err
	}
	if want := ch.tree.Size() + uint64(len(leaves)); blk.Checkpoint.Size != want {
		return PutResult{}, nil, refused(blk, c, ErrBadCheckpoint, "size %d, but the parent's log of %d plus %d transcripts is %d", blk.Checkpoint.Size, ch.tree.Size(), len(leaves), want)
	}
	tree, nodes := extend(ch.tree, leaves)
	if root := tree.Root(); root != blk.Checkpoint.Root {
		return PutResult{}, nil, refused(blk, c, ErrBadCheckpoint, "root %s, but the log with these transcripts has root %s", blk.Checkpoint.Root, root)
	}
	st := &staged{blk: blk, block: encoded{block, c}, leaves: leaves, decisions: decisions, tree: tree, nodes: nodes, bind: bind}
	f, err := s.apply(ch, st)
	if err != nil {
		return PutResult{}, nil, err
	}
	return PutResult{Block: ref, Stored: true}, f, nil
}

// linkedObjects checks every object blk links. Caller holds writeMu (the
// challenge check reads the log).
func (s *Store) linkedObjects(blk *record.Block, c cid.Cid, objects map[cid.Cid][]byte) ([]leafRecord, []encoded, error) {
	if err := checkObjectBytes(blk, c, objects); err != nil {
		return nil, nil, err
	}
	leaves := make([]leafRecord, 0, len(blk.Transcripts))
	used := map[string]int{}
	for i, l := range blk.Transcripts {
		raw, ok := objects[l.Cid]
		if !ok {
			return nil, nil, refused(blk, c, ErrMissingObject, "transcript %d (%s) not supplied", i, l.Cid)
		}
		if err := codec.CheckCID(raw, l.Cid); err != nil {
			return nil, nil, refused(blk, c, ErrMissingObject, "transcript %d: %v", i, err)
		}
		t, err := record.DecodeTranscript(raw)
		if err != nil {
			return nil, nil, refused(blk, c, record.ErrMalformed, "transcript %d (%s): %v", i, l.Cid, err)
		}
		if t.Validator != blk.Validator {
			return nil, nil, refused(blk, c, record.ErrMalformed, "transcript %d (%s) names validator %s", i, l.Cid, t.Validator)
		}
		rec, err := newLeafRecord(t, raw, l.Cid)
		if err != nil {
			return nil, nil, refused(blk, c, record.ErrMalformed, "%v", err)
		}
		if j, dup := used[string(rec.challenge)]; dup {
			return nil, nil, refused(blk, c, ErrChallengeReused, "transcripts %d and %d both put challenge %s to miner %s", j, i, t.Challenge, t.Miner.Hotkey)
		}
		used[string(rec.challenge)] = i
		dup, err := s.challengeUsed(blk.Validator, rec.challenge)
		if err != nil {
			return nil, nil, err
		}
		if dup {
			return nil, nil, refused(blk, c, ErrChallengeReused, "transcript %d: the validator's log already put challenge %s to miner %s", i, t.Challenge, t.Miner.Hotkey)
		}
		leaves = append(leaves, rec)
	}
	decisions := make([]encoded, 0, len(blk.Decisions))
	for i, l := range blk.Decisions {
		raw, ok := objects[l.Cid]
		if !ok {
			return nil, nil, refused(blk, c, ErrMissingObject, "decision %d (%s) not supplied", i, l.Cid)
		}
		if err := codec.CheckCID(raw, l.Cid); err != nil {
			return nil, nil, refused(blk, c, ErrMissingObject, "decision %d: %v", i, err)
		}
		if err := s.opts.decisionCheck(raw); err != nil {
			return nil, nil, refused(blk, c, record.ErrMalformed, "decision %d (%s): %v", i, l.Cid, err)
		}
		decisions = append(decisions, encoded{raw, l.Cid})
	}
	return leaves, decisions, nil
}

// checkObjectBytes refuses a block whose supplied objects total more than
// record.MaxBlockObjectBytes, before any of them is decoded.
func checkObjectBytes(blk *record.Block, c cid.Cid, objects map[cid.Cid][]byte) error {
	total := 0
	for _, links := range [2][]codec.Link{blk.Transcripts, blk.Decisions} {
		for _, l := range links {
			total += len(objects[l.Cid])
		}
	}
	if total > record.MaxBlockObjectBytes {
		return refused(blk, c, record.ErrMalformed, "its transcripts and decisions total %d bytes, max %d", total, record.MaxBlockObjectBytes)
	}
	return nil
}

// putKnownHeight handles a block at a height the chain already has: the
// same block again, or equivocation. Caller holds writeMu.
func (s *Store) putKnownHeight(blk *record.Block, block []byte, ref record.BlockRef) (PutResult, *inflight, error) {
	v := blk.Validator
	at, ok, err := get(s.db, layout.BlockKey(v, blk.Height))
	if err != nil {
		return PutResult{}, nil, err
	}
	if !ok {
		return PutResult{}, nil, fmt.Errorf("put %s: %w: no block stored at height %d below the head", ref, ErrCorrupt, blk.Height)
	}
	if bytes.Equal(at, ref.CID.Bytes()) {
		return PutResult{Block: ref}, nil, nil
	}
	stored, ok, err := get(s.db, layout.ObjectKey(at))
	if err != nil {
		return PutResult{}, nil, err
	}
	if !ok {
		return PutResult{}, nil, fmt.Errorf("put %s: %w: block %x indexed at height %d is not stored", ref, ErrCorrupt, at, blk.Height)
	}
	proof, err := record.NewForkProof(stored, block)
	if err != nil {
		return PutResult{}, nil, fmt.Errorf("put %s: %w: stored block does not form a fork proof: %v", ref, ErrCorrupt, err)
	}
	raw, pc, err := proof.Encode()
	if err != nil {
		return PutResult{}, nil, err
	}
	eq := &EquivocationError{Validator: v, Height: blk.Height, Proof: pc}
	// A conflicting block of the chain this store signs was signed
	// elsewhere: halt it, with the proof (halt.go).
	_, mine := s.local[v]
	if known, err := has(s.db, layout.ForkKey(v, blk.Height, pc.Bytes())); err != nil || known {
		if err != nil {
			return PutResult{}, nil, err
		}
		var f *inflight
		if mine {
			if f, err = s.halt(nil, v, blk.Height, ref.CID); err != nil {
				return PutResult{}, nil, err
			}
		}
		return PutResult{}, f, eq
	}
	marked, err := has(s.db, layout.EquivocKey(v))
	if err != nil {
		return PutResult{}, nil, err
	}
	b := s.db.NewBatch()
	b.Set(layout.ObjectKey(pc.Bytes()), raw, nil)
	b.Set(layout.ForkKey(v, blk.Height, pc.Bytes()), nil, nil)
	if !marked {
		b.Set(layout.EquivocKey(v), pc.Bytes(), nil)
	}
	if mine {
		if _, err := s.halt(b, v, blk.Height, ref.CID); err != nil {
			b.Close()
			return PutResult{}, nil, err
		}
	}
	f, err := s.applyBatch(b)
	if err != nil {
		return PutResult{}, nil, fmt.Errorf("ledger store: write fork proof of %s: %w", ref, err)
	}
	return PutResult{}, f, eq
}
