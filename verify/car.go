package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
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

type carVerifier struct {
	vf      *Verifier
	ar      *archive.Reader
	v       *keys.PublicKey
	heads   []cid.Cid
	inForks bool
}

func (c *carVerifier) run() {
	for {
		sec, err := c.ar.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.vf.Fail(Failure{Transcript: -1, Reason: err.Error()})
			return
		}
		switch archive.Classify(sec.Data) {
		case archive.Block:
			if c.inForks {
				c.vf.Fail(Failure{CID: sec.CID.String(), Transcript: -1, Reason: fmt.Sprintf("section %d: block after the fork proofs", sec.Index)})
				return
			}
			if !c.block(sec) {
				return
			}
		case archive.ForkProof:
			c.endChain()
			c.inForks = true
			c.vf.ForkProof(sec.Data, sec.CID)
		default:
			c.vf.Fail(Failure{CID: sec.CID.String(), Transcript: -1, Reason: fmt.Sprintf("section %d: neither a block nor a fork proof where one of them belongs", sec.Index)})
			if !c.resync() {
				return
			}
		}
	}
	c.endChain()
	c.checkRoots()
}

// block verifies one block, pulling its objects from the sections after
// it. It returns false when the archive cannot be read on.
func (c *carVerifier) block(sec archive.Section) bool {
	blk := blockShape(sec.Data)
	if c.v == nil || blk.Validator != *c.v {
		if c.v != nil && bytes.Compare(blk.Validator[:], c.v[:]) <= 0 {
			c.vf.Fail(Failure{Validator: blk.Validator.String(), Height: blk.Height, CID: sec.CID.String(), Transcript: -1,
				Reason: fmt.Sprintf("section %d: chain of %s after the chain of %s: chains must be in increasing validator order", sec.Index, blk.Validator, c.v)})
			return false
		}
		c.endChain()
		v := blk.Validator
		c.v = &v
		if err := c.vf.StartChain(v, Genesis()); err != nil {
			c.vf.Fail(Failure{Validator: v.String(), Transcript: -1, Reason: err.Error()})
			return false
		}
	}
	if c.vf.Failed() {
		return c.resync()
	}
	fetch := func(want cid.Cid) ([]byte, error) {
		o, err := c.ar.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("not in the archive: it ends first")
			}
			return nil, err
		}
		if !o.CID.Equals(want) {
			c.ar.Unread(o)
			return nil, fmt.Errorf("not in the archive where the block's links put it (section %d is %s)", o.Index, o.CID)
		}
		return o.Data, nil
	}
	c.vf.Block(sec.Data, sec.CID, fetch)
	if c.vf.Failed() {
		return c.resync()
	}
	return true
}

// resync skips the rest of a failed chain: every section up to the next
// block of another validator or the first fork proof.
func (c *carVerifier) resync() bool {
	for {
		sec, err := c.ar.Next()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			c.vf.Fail(Failure{Transcript: -1, Reason: err.Error()})
			return false
		}
		switch archive.Classify(sec.Data) {
		case archive.ForkProof:
			c.ar.Unread(sec)
			return true
		case archive.Block:
			if c.v == nil || blockShape(sec.Data).Validator != *c.v {
				c.ar.Unread(sec)
				return true
			}
		}
	}
}

func (c *carVerifier) endChain() {
	if c.v == nil {
		return
	}
	head, _, _ := c.vf.Head()
	if c.vf.Failed() {
		head = cid.Undef // unknown: the chain did not verify to its end
	}
	c.heads = append(c.heads, head)
	c.v = nil
}

// checkRoots compares the header's roots with the chains' last blocks.
func (c *carVerifier) checkRoots() {
	roots := c.ar.Roots
	if len(roots) != len(c.heads) {
		c.vf.Fail(Failure{Transcript: -1, Reason: fmt.Sprintf("the header names %d roots, the archive holds %d chains", len(roots), len(c.heads))})
		return
	}
	for i, h := range c.heads {
		if h.Defined() && !h.Equals(roots[i]) {
			c.vf.Fail(Failure{CID: roots[i].String(), Transcript: -1, Reason: fmt.Sprintf("root %d is %s, but chain %d ends with block %s", i, roots[i], i, h)})
		}
	}
}

// blockShape decodes a section Classify called a block, without the
// structural checks Verifier.Block reports.
func blockShape(data []byte) *ledger.Block {
	var b ledger.Block
	_ = codec.Unmarshal(data, &b)
	return &b
}
