package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// VerifyCAR audits an archive written by archive.Export, streaming it once
// (spec/verify.md#archive). The error is for a file that is not a CARv1 at
// all; a broken section later, a section out of order or roots that do not
// name the chains' last blocks are failures in the report.
func VerifyCAR(r io.Reader, opts Options) (Report, error) {
	ar, err := archive.NewReader(r)
	if err != nil {
		return Report{}, err
	}
	c := carVerifier{vf: New(opts), ar: ar}
	c.run()
	return c.vf.Report(), nil
}

// carVerifier drives a Verifier through an archive. Where a chain starts
// and where a block's objects end follow from the archive's layout and
// from records whose bytes hash to their CIDs, never from the shape of a
// section that does not (carlayout.go).
type carVerifier struct {
	vf *Verifier
	ar *archive.Reader
	// v is the current chain's validator, nil before the first chain, in
	// the fork proofs, and after a chain whose validator is unknown.
	v *keys.PublicKey
	// filed is the current chain's last block section so far, verified or
	// not (data dropped), and the height it stands at.
	filed       archive.Section
	filedHeight uint64
	chains      []carChain
	inForks     bool
	// lost is set once the reader no longer knows where the next block or
	// fork proof is; damaged is a damaged section where one belonged,
	// whose chain the next block found may tell (carlayout.go).
	lost    bool
	damaged *archive.Section
	// passedRoots is one more than the highest root that named a damaged
	// section skipped since the reader lost its place, if it is a later
	// chain's: that chain ended unread.
	passedRoots int
	// rootAt indexes the roots by CID, built when first needed.
	rootAt map[cid.Cid]int
	// ahead is the section after a block's last object, read as soon as
	// that object was (readAhead), nil if not read yet.
	ahead *topSection
}

// topSection is a section where a block or fork proof may be, read and
// looked at: cidErr is its bytes against its CID, and only if they match,
// kind and blk say what it is. sig, if not nil, is blk's signature check,
// started when the section was read ahead.
type topSection struct {
	sec    archive.Section
	err    error
	cidErr error
	kind   archive.Kind
	blk    *record.Block
	sig    <-chan error
}

// next reads the next section where a block or fork proof may be.
func (c *carVerifier) next() topSection {
	if t := c.ahead; t != nil {
		c.ahead = nil
		return *t
	}
	return c.readTop()
}

func (c *carVerifier) readTop() topSection {
	var t topSection
	if t.sec, t.err = c.ar.Next(); t.err != nil {
		return t
	}
	// Nothing a section says is used before its bytes are checked
	// against its CID: damaged bytes may claim any validator.
	t.kind = archive.Other
	if t.cidErr = codec.CheckCID(t.sec.Data, t.sec.CID); t.cidErr == nil {
		t.kind, t.blk = archive.ClassifyBlock(t.sec.Data)
	}
	return t
}

// readAhead reads the section after a block's objects once the last of
// them was fetched, on the goroutine that fetched it (a pipeline's worker,
// while the others still check the block's transcripts), so that the next
// block's reading, decoding and signature check do not wait for this
// block's end with a core idle. What it reads is used exactly as if read
// later: nothing else reads the archive in between.
func (c *carVerifier) readAhead() {
	t := c.readTop()
	if t.kind == archive.Block {
		t.sig = checkSignature(t.blk)
	}
	c.ahead = &t
}

// carChain is how a chain of the archive ended, for the roots check.
type carChain struct {
	// validator is the SS58 address, "" if unknown (a chain of one
	// damaged block, found by its root).
	validator string
	// head and height are the last verified block; head is undefined if
	// the chain failed (its end is then unknown) or has no valid block.
	head   cid.Cid
	height uint64
	// filed is the chain's last block section, which the root must name
	// even when the chain failed before it.
	filed       archive.Section
	filedHeight uint64
}

func (c *carVerifier) run() {
	if c.read() {
		c.endChain()
		c.checkRoots(true)
		return
	}
	// The archive cannot be read on: the chains read to their end still
	// have their roots checked.
	c.checkRoots(false)
}

// read verifies the sections in order, false if it had to stop before
// the end.
func (c *carVerifier) read() bool {
	for {
		t := c.next()
		sec, err := t.sec, t.err
		if err != nil {
			c.settleLost(nil)
			if errors.Is(err, io.EOF) {
				return true
			}
			c.vf.Fail(Failure{Transcript: -1, Reason: err.Error()})
			return false
		}
		if c.inForks {
			if !c.forkSection(sec) {
				return false
			}
			continue
		}
		cidErr, kind, blk := t.cidErr, t.kind, t.blk
		if c.lost {
			if !c.resumesAt(cidErr, kind, blk) {
				if cidErr != nil {
					c.passDamaged(sec)
				}
				c.ar.Recycle(sec.Data)
				continue
			}
			c.lost = false
			c.settleLost(blk)
		}
		switch {
		case cidErr != nil:
			c.damagedSection(sec)
		case kind == archive.Block:
			if !c.block(sec, &preread{shape: blk, sig: t.sig}) {
				return false
			}
		case kind == archive.ForkProof:
			c.endChain()
			c.inForks = true
			c.forkProof(sec)
		default:
			c.outOfPlace(sec, "neither a block nor a fork proof where one of them belongs")
		}
	}
}

// forkSection checks a section after the first fork proof, where only
// fork proofs belong, each a section of its own (so the layout is never
// lost there). It returns false when the archive cannot be read on.
func (c *carVerifier) forkSection(sec archive.Section) bool {
	if codec.CheckCID(sec.Data, sec.CID) != nil {
		c.forkProof(sec) // fails: its bytes do not match the CID
		return true
	}
	switch archive.Classify(sec.Data) {
	case archive.Block:
		c.vf.Fail(Failure{CID: sec.CID.String(), Transcript: -1, Reason: fmt.Sprintf("%s: block after the fork proofs", sec.Where())})
		return false
	case archive.ForkProof:
		c.forkProof(sec)
	default:
		c.vf.Fail(Failure{CID: sec.CID.String(), Transcript: -1, Reason: fmt.Sprintf("%s: not a fork proof where one belongs", sec.Where())})
	}
	return true
}

// forkProof checks a fork proof, whose failure (valid or not, a proof of
// format 2 is one) names its section. A valid one of format 1 fails no
// one.
func (c *carVerifier) forkProof(sec archive.Section) {
	n := len(c.vf.rep.Failures)
	c.vf.ForkProof(sec.Data, sec.CID)
	if len(c.vf.rep.Failures) > n {
		f := &c.vf.rep.Failures[len(c.vf.rep.Failures)-1]
		f.Reason += " (archive " + sec.Where() + ")"
	}
}

// block verifies one block, whose section hashes to its CID and decoded
// to pre.shape (structure unchecked), pulling its objects from the
// sections after it. It returns false when the archive cannot be read on.
func (c *carVerifier) block(sec archive.Section, pre *preread) bool {
	blk := pre.shape
	if c.v == nil || blk.Validator != *c.v {
		if c.v != nil && bytes.Compare(blk.Validator[:], c.v[:]) < 0 {
			// The block is genuine but out of place: what follows it
			// may be its objects or the ones of the block it displaced.
			c.outOfPlace(sec, fmt.Sprintf("chain of %s after the chain of %s: chains must be in increasing validator order", blk.Validator, c.v))
			return true
		}
		if !c.startChain(blk.Validator) {
			return false
		}
	}
	c.file(sec, blk.Height)
	if c.vf.Failed() {
		// Not checked: the chain failed before it.
		c.skipObjects(blk, 0)
		return true
	}
	// fetched holds the sections of the block's objects read so far, in
	// link order (data dropped), to say where a failing one is; a fetch
	// that fails says it in its error.
	var fetched []archive.Section
	fetchFailed := false
	fetch := func(want cid.Cid) ([]byte, error) {
		o, err := c.ar.Next()
		if err != nil {
			fetchFailed = true
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("not in the archive: it ends first, at byte %d", c.ar.Offset())
			}
			return nil, err
		}
		if !o.CID.Equals(want) {
			fetchFailed = true
			c.ar.Unread(o)
			return nil, fmt.Errorf("not in the archive where the block's links put it (%s is %s)", o.Where(), o.CID)
		}
		fetched = append(fetched, archive.Section{Index: o.Index, Offset: o.Offset, CID: o.CID})
		if len(fetched) == len(blk.Transcripts)+len(blk.Decisions) {
			c.readAhead()
		}
		return o.Data, nil
	}
	before := len(c.vf.rep.Failures)
	// The block's transcripts are read into recycled buffers: check keeps
	// nothing of their bytes (TestCheckKeepsNothingOfRaw).
	c.vf.block(sec.Data, sec.CID, pre, source{fetch: fetch, release: c.ar.Recycle})
	if c.vf.Failed() {
		if len(c.vf.rep.Failures) > before {
			locate(&c.vf.rep.Failures[len(c.vf.rep.Failures)-1], sec, fetched, fetchFailed)
		}
		// The fetches read the links in order, each one section, and
		// stopped at the first that failed.
		c.skipObjects(blk, len(fetched))
	}
	return true
}

// startChain ends the current chain and starts v's.
func (c *carVerifier) startChain(v keys.PublicKey) bool {
	c.endChain()
	if err := c.vf.StartChain(v, Genesis()); err != nil {
		c.vf.Fail(Failure{Validator: v.String(), Transcript: -1, Reason: err.Error()})
		return false
	}
	c.v = &v
	return true
}

// locate appends to a failure of the block in section blk the archive
// section that failed: a fetched transcript's or decision's, else the
// block's (a block whose bytes were damaged, or a block out of place that
// links objects that are not there: the section is where it really is; a
// failed fetch names the section it found in its error).
func locate(f *Failure, blk archive.Section, fetched []archive.Section, fetchFailed bool) {
	switch {
	case f.Transcript >= 0 && f.Transcript < len(fetched):
		f.Reason += " (archive " + fetched[f.Transcript].Where() + ")"
	case !fetchFailed && f.Transcript < 0 && len(fetched) > 0 && strings.Contains(f.Reason, fetched[len(fetched)-1].CID.String()):
		// A decision, checked as soon as it is read.
		f.Reason += " (archive " + fetched[len(fetched)-1].Where() + ")"
	default:
		f.Reason += " (the block is archive " + blk.Where() + ")"
	}
}

func (c *carVerifier) endChain() {
	if c.v == nil {
		return
	}
	head, height, _ := c.vf.Head()
	if c.vf.Failed() {
		head = cid.Undef // unknown: the chain did not verify to its end
	}
	c.chains = append(c.chains, carChain{validator: c.v.String(), head: head, height: height, filed: c.filed, filedHeight: c.filedHeight})
	c.v = nil
}

func (c *carVerifier) file(sec archive.Section, height uint64) {
	c.filed = archive.Section{Index: sec.Index, Offset: sec.Offset, CID: sec.CID}
	c.filedHeight = height
}

// checkRoots compares the header's roots with the chains' last blocks,
// root by root: an archive cut short at a block boundary differs from
// its header only here, so the failure names where its chain stops. If
// the archive was not read to its end (whole false), only the chains
// read to theirs are checked.
func (c *carVerifier) checkRoots(whole bool) {
	roots := c.ar.Roots
	for i := range max(len(roots), len(c.chains)) {
		switch {
		case i >= len(c.chains) && !whole:
			// Not read that far: unknown.
		case i >= len(c.chains):
			c.vf.Fail(Failure{CID: roots[i].String(), Transcript: -1,
				Reason: fmt.Sprintf("root %d is %s, but the archive holds only %d chains: it ends at byte %d", i, roots[i], len(c.chains), c.ar.Offset())})
		case i >= len(roots):
			ch := c.chains[i]
			c.vf.Fail(Failure{Validator: ch.validator, Height: ch.height, CID: cidString(ch.head), Transcript: -1,
				Reason: fmt.Sprintf("chain %d has no root: the header names %d roots", i, len(roots))})
		case c.chains[i].head.Defined() && !c.chains[i].head.Equals(roots[i]):
			ch := c.chains[i]
			c.vf.Fail(Failure{Validator: ch.validator, Height: ch.height, CID: ch.head.String(), Transcript: -1,
				Reason: fmt.Sprintf("root %d is %s, but chain %d ends with this block", i, roots[i], i)})
		case !c.chains[i].head.Defined() && !c.chains[i].filed.CID.Equals(roots[i]):
			// The chain failed, so its end is not verified; the root must
			// still name the last block the archive files in it.
			ch := c.chains[i]
			c.vf.Fail(Failure{Validator: ch.validator, Height: ch.filedHeight, CID: ch.filed.CID.String(), Transcript: -1,
				Reason: fmt.Sprintf("root %d is %s, but the chain's last block in the archive is this one (%s)", i, roots[i], ch.filed.Where())})
		}
	}
}

func cidString(c cid.Cid) string {
	if !c.Defined() {
		return ""
	}
	return c.String()
}
