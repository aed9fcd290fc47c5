package verify

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// How the archive reader keeps its place (spec/verify.md#reading-an-archive).
//
// A block's objects are the sections right after it, one per link: a
// block whose bytes hash to its CID says how many follow and under which
// CIDs, so the reader skips exactly those after a block it does not
// check or that fails. A decision may be any record, a block or a fork
// proof included; read as a block, it would start a chain or end the
// chains, and the honest chain it copies would be blamed for what
// follows it.
//
// Where that does not tell (a section where a block belongs is damaged,
// is no block, or is a block out of place), the reader has lost its
// place: it reports the section and resumes at the next section that
// hashes to its CID and is a block that may come next or a fork proof.
// Which chain a damaged section belonged to is decided from what is
// intact: the chain being read, the roots, the block the reader resumes
// at; never from what the damaged bytes say.

// skipObjects skips the objects of blk after the first done of its links
// (transcripts then decisions) were read: as many sections as links are
// left, each under a CID the block links and not yet skipped. The first
// section that is not one of them is where the next block or fork proof
// belongs: the objects the block misses are reported with the block, if
// it was checked.
func (c *carVerifier) skipObjects(blk *record.Block, done int) {
	left := make(map[cid.Cid]int)
	n, i := 0, 0
	for _, links := range [2][]codec.Link{blk.Transcripts, blk.Decisions} {
		for _, l := range links {
			if i >= done {
				left[l.Cid]++
				n++
			}
			i++
		}
	}
	for ; n > 0; n-- {
		sec, err := c.ar.Next()
		if err != nil {
			return // the reader returns it again, to read
		}
		if left[sec.CID] == 0 {
			c.ar.Unread(sec)
			return
		}
		left[sec.CID]--
		c.ar.Recycle(sec.Data)
	}
}

// outOfPlace reports a section where a block or fork proof belongs that
// hashes to its CID but is neither, or a block that cannot come here, and
// loses the reader's place. Within a chain that already failed it is not
// reported: the chain's failure marks where the archive goes wrong, and
// its remains are skipped.
func (c *carVerifier) outOfPlace(sec archive.Section, what string) {
	c.lost = true
	if c.v != nil && c.vf.Failed() {
		return
	}
	c.vf.Fail(Failure{CID: sec.CID.String(), Transcript: -1, Reason: fmt.Sprintf("%s: %s", sec.Where(), what)})
}

// resumesAt reports whether a section, once the reader has lost its
// place, is where it takes it up again: a fork proof, or a block of the
// current chain's validator or a later one, whose bytes hash to its CID.
func (c *carVerifier) resumesAt(cidErr error, kind archive.Kind, blk *record.Block) bool {
	if cidErr != nil {
		return false
	}
	switch kind {
	case archive.ForkProof:
		return true
	case archive.Block:
		return c.v == nil || bytes.Compare(blk.Validator[:], c.v[:]) >= 0
	}
	return false
}

// damagedSection handles a section where a block or fork proof belongs
// whose bytes do not hash to its CID. Nothing in it can be used: not the
// validator it names, nor the links that would tell where its objects
// end, so the reader loses its place. While the current chain has not
// reached the block its root names, the section stands for the chain's
// next block, which fails B1 there. Otherwise it may be the next chain's
// first block or a fork proof: settleLost decides once the reader
// resumes.
func (c *carVerifier) damagedSection(sec archive.Section) {
	c.lost = true
	if c.v == nil || c.chainComplete() {
		c.damaged = &sec
	}
	c.passDamaged(sec)
}

// passDamaged places a damaged section met where a block belongs or
// since the reader lost its place. If the current chain's root names it,
// it is the chain's last block: it fails the chain (if nothing did
// before) and ends it. If a later chain's root names it, that chain ended
// there, with no block of it intact. Else, while the current chain has
// not reached its root, it is the chain's next block.
func (c *carVerifier) passDamaged(sec archive.Section) {
	i, ok := c.rootIndex(sec.CID)
	switch {
	case ok && c.v != nil && i == len(c.chains):
		if !c.vf.Failed() {
			c.damagedBlock(sec)
		}
		c.file(sec, c.filedHeight+1)
	case ok:
		c.passedRoots = max(c.passedRoots, i+1)
	case c.v != nil && !c.vf.Failed() && !c.chainComplete():
		// The chain's next block, as far as the layout tells.
		c.damagedBlock(sec)
	}
}

// settleLost reports, once the reader resumes at next (a block, or nil:
// a fork proof or the archive's end), what the sections it skipped tell
// about chains it could not read: the damaged section set aside by
// damagedSection, and the chains whose roots name damaged sections.
//
// If a later chain's root named a skipped section, the chains up to it
// ended unread: the first began with the damaged section, and their
// validators are unknown. Else, if next is a later chain's block above
// height 0, that chain's first block is not in its place intact: the
// damaged section stands for it, and the chain fails there. Else the
// damaged section is a record of no known chain.
func (c *carVerifier) settleLost(next *record.Block) {
	d, passed := c.damaged, c.passedRoots
	c.damaged, c.passedRoots = nil, 0
	if d != nil {
		defer c.ar.Recycle(d.Data)
	}
	base := len(c.chains)
	if c.v != nil {
		base++
	}
	switch {
	case passed > base:
		c.endChain()
		for k := base; k < passed; k++ {
			c.chains = append(c.chains, carChain{filed: archive.Section{Index: -1, CID: c.ar.Roots[k]}})
			c.vf.rep.Chains++
		}
		if d == nil {
			c.vf.Fail(Failure{CID: c.ar.Roots[passed-1].String(), Transcript: -1,
				Reason: fmt.Sprintf("chains %d to %d: no block of them is intact where the archive holds them (their roots name damaged sections)", base, passed-1)})
			return
		}
		c.vf.rep.Blocks++
		c.vf.Fail(Failure{CID: d.CID.String(), Transcript: -1,
			Reason: fmt.Sprintf("%s: block bytes do not match their CID (%v): the first block of chain %d, of which no block is intact to tell its validator", d.Where(), codec.CheckCID(d.Data, d.CID), base)})
	case d == nil:
	case next != nil && next.Height > 0 && (c.v == nil || bytes.Compare(next.Validator[:], c.v[:]) > 0):
		if c.startChain(next.Validator) {
			c.damagedBlock(*d)
			c.file(*d, 0)
		}
	default:
		c.vf.Fail(Failure{CID: d.CID.String(), Transcript: -1,
			Reason: fmt.Sprintf("%s: bytes do not match the section's CID (%v): a damaged block or fork proof", d.Where(), codec.CheckCID(d.Data, d.CID))})
	}
}

// damagedBlock feeds a damaged section to the current chain as its next
// block, which fails there (B1).
func (c *carVerifier) damagedBlock(sec archive.Section) {
	before := len(c.vf.rep.Failures)
	c.vf.block(sec.Data, sec.CID, nil, source{fetch: func(cid.Cid) ([]byte, error) {
		return nil, errors.New("a damaged block's links are not read")
	}})
	if len(c.vf.rep.Failures) > before {
		locate(&c.vf.rep.Failures[len(c.vf.rep.Failures)-1], sec, nil, false)
	}
}

// chainComplete reports whether the current chain's last block so far is
// the one its root names.
func (c *carVerifier) chainComplete() bool {
	i, ok := c.rootIndex(c.filed.CID)
	return ok && i == len(c.chains)
}

// rootIndex finds x among the roots of the current chain and the later
// ones.
func (c *carVerifier) rootIndex(x cid.Cid) (int, bool) {
	if c.rootAt == nil {
		c.rootAt = make(map[cid.Cid]int, len(c.ar.Roots))
		for i := len(c.ar.Roots) - 1; i >= 0; i-- {
			c.rootAt[c.ar.Roots[i]] = i
		}
	}
	i, ok := c.rootAt[x]
	return i, ok && i >= len(c.chains)
}
