package verify

import (
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// StoreScope narrows a store audit.
type StoreScope struct {
	// Validator, if set, limits the audit to that validator's chain and
	// its fork proofs: another validator's equivocation is not a failure
	// of this one (spec/verify.md).
	Validator *keys.PublicKey
	// From is the first height to verify in every chain; the state before
	// it (link, time, anchor, log) is taken from the signed block at From-1
	// and the store's frontier at its size, which must give its root.
	// Challenge uniqueness is then checked within [From, head] only.
	From uint64
}

// ChainHead is a chain as the store names it before the audit starts.
type ChainHead struct {
	Validator keys.PublicKey
	Height    uint64
	CID       cid.Cid
}

// StoreHeads lists the store's chains in validator order.
func StoreHeads(s *ledger.Store, scope StoreScope) ([]ChainHead, error) {
	var out []ChainHead
	for h, err := range s.Heads() {
		if err != nil {
			return nil, fmt.Errorf("read chain heads: %w", err)
		}
		if scope.Validator != nil && h.Block.Validator != *scope.Validator {
			continue
		}
		out = append(out, ChainHead{Validator: h.Block.Validator, Height: h.Block.Height, CID: h.Block.CID})
	}
	if scope.Validator != nil && len(out) == 0 {
		return nil, fmt.Errorf("the store has no chain of validator %s: %w", scope.Validator, ledger.ErrNotFound)
	}
	return out, nil
}

// VerifyStore audits the chains of heads (from StoreHeads) and the
// recorded fork proofs of s, those of scope.Validator only if set. The
// error is for a store that cannot be read at
// all; everything else is a failure in the report.
func VerifyStore(s *ledger.Store, heads []ChainHead, scope StoreScope, opts Options) (Report, error) {
	opts.ConcurrentFetch = true
	vf := New(opts)
	// The network the store records, if any, is the ledger's, unless the
	// auditor asserts another. The store's own refusal of other networks'
	// blocks is not trusted: every block is held to it (N2).
	vf.recordedNetwork(s.Network())
	// The store lends its bytes (no copy per object); the verifier hashes
	// and decodes them in place. Blocks are read by CID from the height
	// index, exactly as stored, as every object is.
	rs := newReaders(s)
	defer rs.close()
	src := source{fetch: s.Object, visit: rs.visit}
	indexes, err := newAuditIndexes(s, scope, opts.Challenges)
	if err != nil {
		return Report{}, err
	}
	defer indexes.close()
	var below []ChainEnd
	for _, h := range heads {
		if scope.From > h.Height {
			below = append(below, ChainEnd{Validator: h.Validator.String(), Height: h.Height})
			continue
		}
		if err := verifyStoreChain(vf, s, h, scope.From, src, indexes); err != nil {
			return Report{}, err
		}
	}
	damage, err := indexes.finish()
	if err != nil {
		return Report{}, err
	}
	for _, f := range damage {
		vf.Fail(f)
	}
	for p, err := range s.ForkProofs() {
		var unreadable *ledger.UnreadableForkProofError
		switch {
		case errors.As(err, &unreadable):
			if scope.Validator != nil && unreadable.Validator != *scope.Validator {
				continue
			}
			f := Failure{Validator: unreadable.Validator.String(), Height: unreadable.Height, CID: cidString(unreadable.CID), Transcript: -1,
				Reason: fmt.Sprintf("fork proof: %v", unreadable.Err)}
			if errors.Is(unreadable.Err, record.ErrMalformed) {
				// Its bytes are the ones its CID names, and they are no
				// fork proof (two blocks of two validators, say): the
				// source's failure, as in an archive (ForkProof).
				f.Validator, f.Height = "", 0
			}
			vf.Fail(f)
			continue
		case err != nil:
			vf.Fail(Failure{Transcript: -1, Reason: fmt.Sprintf("read fork proofs: %v", err)})
			continue
		}
		if scope.Validator != nil && p.Validator != *scope.Validator {
			continue
		}
		vf.ForkProof(p.Raw, p.CID)
	}
	rep := vf.Report()
	rep.BelowFrom = below
	return rep, nil
}

// verifyStoreChain feeds vf the chain of h from height from on, its
// stored Merkle nodes held to the log it recomputes and its transcripts'
// index entries to indexes. The error is for a store that cannot be read
// at all.
func verifyStoreChain(vf *Verifier, s *ledger.Store, h ChainHead, from uint64, src source, indexes *auditIndexes) error {
	nodes, err := s.NewNodeReader(h.Validator)
	if err != nil {
		return err
	}
	defer nodes.Close()
	start, err := storeStart(s, h.Validator, from)
	start.Nodes = nodes
	if err == nil {
		if start.Indexes, err = indexes.chain(h.Validator, start.Size); err != nil {
			return err
		}
	}
	if err := vf.StartChain(h.Validator, start); err != nil {
		return err
	}
	var damaged *frontierError
	switch {
	case errors.As(err, &damaged):
		vf.failChain(Failure{Transcript: -1, Reason: fmt.Sprintf("%svalidator %s's log: %v, so the audit cannot start at height %d", storeDamage, h.Validator, err, from)})
		return nil
	case err != nil:
		vf.SourceError(from-1, cid.Undef, err)
		return nil
	}
	pos := from
	for ref, err := range s.BlockRefs(h.Validator, from) {
		if err == nil && pos > h.Height {
			break // appended after the audit started
		}
		if err == nil {
			err = s.ReadObject(ref.CID, func(raw []byte) error {
				vf.block(raw, ref.CID, nil, src)
				return nil
			})
		}
		if err != nil {
			_, last, ok := vf.Head()
			next := from
			if ok {
				next = last + 1
			}
			vf.SourceError(next, linkTo(s, h.Validator, next), fmt.Errorf("read block: %w", err))
			break
		}
		pos++
		if vf.Failed() {
			break
		}
	}
	if vf.Failed() {
		return nil
	}
	if c, last, ok := vf.Head(); !ok || last != h.Height || !c.Equals(h.CID) {
		vf.SourceError(h.Height, h.CID, fmt.Errorf("the head is block %s at height %d, but the chain's blocks end before it", h.CID, h.Height))
	}
	vf.EndChain()
	return nil
}

// storeStart is Genesis for from 0; otherwise the state after the signed
// block at from-1, its format and network included.
func storeStart(s *ledger.Store, v keys.PublicKey, from uint64) (Start, error) {
	if from == 0 {
		return Genesis(), nil
	}
	parent, err := s.BlockAt(v, from-1)
	if err != nil {
		return Genesis(), fmt.Errorf("block before the first one to verify: %w", err)
	}
	// The index is the store's, not verified: the block it names must be
	// v's at from-1, or the blocks from on would be checked against
	// another chain's state, or a state the chain skipped to.
	if parent.Validator != v || parent.Height != from-1 {
		return Genesis(), fmt.Errorf("the height index names block %s at height %d, a block of %s at height %d", parent.CID, from-1, parent.Validator, parent.Height)
	}
	if err := parent.VerifySignature(); err != nil {
		return Genesis(), err
	}
	frontier, err := s.Frontier(v, parent.Checkpoint.Size)
	if err != nil {
		return Genesis(), &frontierError{size: parent.Checkpoint.Size, err: err}
	}
	return Start{Height: from, Prev: parent.CID, TimeMS: parent.TimeMS, Anchor: parent.Anchor,
		Size: parent.Checkpoint.Size, Frontier: frontier, Root: parent.Checkpoint.Root, Anchors: storeAnchors(s, v, from-1),
		Format: parent.Format, Net: parent.Net}, nil
}

// linkTo names the block at height by the next block's prev link, which
// is what the chain says it must be, when the store cannot give it.
func linkTo(s *ledger.Store, v keys.PublicKey, height uint64) cid.Cid {
	next, err := s.BlockAt(v, height+1)
	if err != nil {
		return cid.Undef
	}
	return next.Prev.Cid
}

// frontierError is a frontier the store cannot give: its nodes or leaves
// are missing or not hashes, which is the store's damage, not the signed
// block's.
type frontierError struct {
	size uint64
	err  error
}

func (e *frontierError) Error() string {
	return fmt.Sprintf("the store cannot give its frontier at size %d (%s): %v", e.size, frontierNodes(e.size), e.err)
}

func (e *frontierError) Unwrap() error { return e.err }
