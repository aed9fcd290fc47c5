package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ErrRejected is wrapped by every reason Import refuses an archive's
// content (as opposed to ErrMalformed, about its framing).
var ErrRejected = errors.New("archive rejected")

// ImportOptions configure Import.
type ImportOptions struct {
	// Check, if set, sees every block with its objects before Store.Put
	// does and can refuse it (the command line runs the verifier here,
	// re-execution included). first is true for a chain's first block.
	Check func(first bool, raw []byte, c cid.Cid, objects []Section) error
}

// Import loads an archive into s, checking everything as it goes: each
// section's bytes against its CID, the archive's order (chains in
// validator order, heights from 0 up, each block followed by exactly the
// transcripts and decisions it links), every block through s.Put (which
// verifies signature, links, checkpoint, objects and challenge uniqueness),
// the roots against the chains' last blocks, and each fork proof. It stops
// at the first problem; blocks stored before it stay stored, as they are
// valid. Blocks the store already has are accepted unchanged.
func Import(s *ledger.Store, r io.Reader, opts ImportOptions) (Stats, error) {
	ar, err := NewReader(r)
	if err != nil {
		return Stats{}, err
	}
	im := importer{s: s, ar: ar, opts: opts}
	err = im.run()
	return im.st, err
}

type importer struct {
	s     *ledger.Store
	ar    *Reader
	opts  ImportOptions
	st    Stats
	heads []cid.Cid
	v     *keys.PublicKey
	next  uint64
}

func (im *importer) run() error {
	inForks := false
	for {
		sec, err := im.ar.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := codec.CheckCID(sec.Data, sec.CID); err != nil {
			return rejected(sec, "bytes do not match the CID: %v", err)
		}
		im.st.Bytes += int64(len(sec.Data))
		switch Classify(sec.Data) {
		case Block:
			if inForks {
				return rejected(sec, "block after the fork proofs")
			}
			if err := im.block(sec); err != nil {
				return err
			}
		case ForkProof:
			inForks = true
			if err := im.forkProof(sec); err != nil {
				return err
			}
		default:
			return rejected(sec, "neither a block nor a fork proof where one of them belongs")
		}
	}
	if len(im.heads) != len(im.ar.Roots) {
		return fmt.Errorf("%w: the header names %d roots, the archive holds %d chains", ErrRejected, len(im.ar.Roots), len(im.heads))
	}
	for i, c := range im.heads {
		if !c.Equals(im.ar.Roots[i]) {
			return fmt.Errorf("%w: root %d is %s, chain %d ends with block %s", ErrRejected, i, im.ar.Roots[i], i, c)
		}
	}
	return nil
}

func (im *importer) block(sec Section) error {
	blk, err := record.DecodeBlock(sec.Data)
	if err != nil {
		return rejected(sec, "%v", err)
	}
	first := im.v == nil || blk.Validator != *im.v
	if first {
		if im.v != nil && bytes.Compare(blk.Validator[:], im.v[:]) <= 0 {
			return rejected(sec, "chain of %s after the chain of %s: chains must be in increasing validator order", blk.Validator, im.v)
		}
		v := blk.Validator
		im.v, im.next = &v, 0
		im.heads = append(im.heads, cid.Undef)
		im.st.Chains++
	}
	if blk.Height != im.next {
		return rejected(sec, "block of %s at height %d where height %d comes next", blk.Validator, blk.Height, im.next)
	}
	links := append(blk.TranscriptCIDs(), blk.DecisionCIDs()...)
	objs := make([]Section, 0, len(links))
	m := make(map[cid.Cid][]byte, len(links))
	size := 0
	for _, l := range links {
		o, err := im.ar.Next()
		if errors.Is(err, io.EOF) {
			return rejected(sec, "archive ends before object %s that the block links", l)
		}
		if err != nil {
			return err
		}
		if !o.CID.Equals(l) {
			return rejected(o, "found where the block at section %d links %s next", sec.Index, l)
		}
		if err := codec.CheckCID(o.Data, o.CID); err != nil {
			return rejected(o, "bytes do not match the CID: %v", err)
		}
		im.st.Bytes += int64(len(o.Data))
		if size += len(o.Data); size > record.MaxBlockObjectBytes {
			// Refused before the rest is read: the store would refuse the
			// block, and holding its objects costs memory without bound.
			return rejected(sec, "its transcripts and decisions total more than %d bytes", record.MaxBlockObjectBytes)
		}
		objs = append(objs, o)
		m[o.CID] = o.Data
	}
	if im.opts.Check != nil {
		if err := im.opts.Check(first, sec.Data, sec.CID, objs); err != nil {
			return rejected(sec, "%v", err)
		}
	}
	if _, err := im.s.Put(sec.Data, m); err != nil {
		return rejected(sec, "%v", err)
	}
	im.st.Blocks++
	im.st.Transcripts += len(blk.Transcripts)
	im.st.Decisions += len(blk.Decisions)
	im.heads[len(im.heads)-1] = sec.CID
	im.next++
	return nil
}

// forkProof records a fork proof the store's way: by putting both of its
// blocks, which makes the store build and keep the proof itself.
func (im *importer) forkProof(sec Section) error {
	p, err := record.DecodeForkProof(sec.Data)
	if err != nil {
		return rejected(sec, "%v", err)
	}
	// Only a height the store already has: a proof's block one above the
	// head could otherwise extend the chain past what the archive holds.
	if h, err := im.s.Head(p.Validator); err != nil || p.Height > h.Block.Height {
		return rejected(sec, "fork proof of %s at height %d is above the validator's imported chain", p.Validator, p.Height)
	}
	recorded := false
	for _, raw := range [2][]byte{p.A, p.B} {
		_, err := im.s.Put(raw, nil)
		var eq *ledger.EquivocationError
		switch {
		case errors.As(err, &eq):
			recorded = true
		case errors.Is(err, ledger.ErrMissingParent):
			return rejected(sec, "fork proof of %s at height %d is above the validator's imported chain", p.Validator, p.Height)
		case err != nil && !errors.Is(err, ledger.ErrMissingObject):
			// A block the store does not hold needs its objects; the
			// proof holds none, and the conflicting stored block is what
			// triggers the proof anyway.
			return rejected(sec, "%v", err)
		}
	}
	if !recorded {
		return rejected(sec, "fork proof of %s at height %d: neither block conflicts with the stored chain", p.Validator, p.Height)
	}
	im.st.ForkProofs++
	return nil
}

func rejected(sec Section, format string, args ...any) error {
	return fmt.Errorf("%w: %s (%s): %s", ErrRejected, sec.Where(), sec.CID, fmt.Sprintf(format, args...))
}
