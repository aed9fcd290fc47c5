package verify_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

// Mutations of the export. Everything before the first changed byte is
// intact and verifies, so the first failure is where the archive first
// differs: carExpect says what it must name there.
//
// The weights of all kinds add up to 100 and favour the export's kinds,
// which cost a tenth of a store case (a store case opens Pebble three
// times, slow under -race): 1000 cases take about 30 s of CPU under
// -race, 15 s on two otherwise idle cores.
var carKinds = []tamperKind{
	{"car/flip-bits", 26, carFlip},
	{"car/truncate", 12, carTruncate},
	{"car/duplicate-section", 7, carDuplicate},
	{"car/drop-section", 7, carDrop},
	{"car/swap-sections", 7, carSwap},
	{"car/swap-block-bytes", 7, carSwapBlockBytes},
}

// carFlip flips 1 to 8 distinct random bits anywhere in the file.
func carFlip(c *tamperCase) (string, error) {
	car, bits := c.flipValue(c.fx.car, 0)
	c.describe("bits %v", bits)
	return carExpect(c, car)
}

// carTruncate cuts the file at a random offset before its end.
func carTruncate(c *tamperCase) (string, error) {
	n := c.r.IntN(len(c.fx.car))
	c.describe("cut at byte %d of %d", n, len(c.fx.car))
	return carExpect(c, c.fx.car[:n])
}

func carDuplicate(c *tamperCase) (string, error) {
	s := c.fx.secs[c.r.IntN(len(c.fx.secs))]
	c.describe("%s duplicated after itself", s.where())
	car := slices.Concat(c.fx.car[:s.end], c.fx.car[s.off:s.end], c.fx.car[s.end:])
	return carExpect(c, car)
}

func carDrop(c *tamperCase) (string, error) {
	s := c.fx.secs[c.r.IntN(len(c.fx.secs))]
	c.describe("%s dropped", s.where())
	return carExpect(c, slices.Concat(c.fx.car[:s.off], c.fx.car[s.end:]))
}

// carSwap swaps two sections whose bytes differ (the shared decision
// appears once per chain, byte for byte: swapping two copies is no
// mutation at all).
func carSwap(c *tamperCase) (string, error) {
	fx := c.fx
	var i, j int
	for {
		i, j = c.r.IntN(len(fx.secs)), c.r.IntN(len(fx.secs))
		if i > j {
			i, j = j, i
		}
		if !bytes.Equal(fx.sectionBytes(i), fx.sectionBytes(j)) {
			break
		}
	}
	c.describe("%s and %s swapped", fx.secs[i].where(), fx.secs[j].where())
	a, b := fx.secs[i], fx.secs[j]
	car := slices.Concat(fx.car[:a.off], fx.sectionBytes(j), fx.car[a.end:b.off], fx.sectionBytes(i), fx.car[b.end:])
	return carExpect(c, car)
}

// carSwapBlockBytes swaps the data of two block sections, leaving each
// section's CID where it was.
func carSwapBlockBytes(c *tamperCase) (string, error) {
	fx := c.fx
	var blocks []carSec
	for _, s := range fx.secs {
		if s.block {
			blocks = append(blocks, s)
		}
	}
	p := c.r.Perm(len(blocks))
	a, b := blocks[min(p[0], p[1])], blocks[max(p[0], p[1])]
	c.describe("data of the blocks in %s and %s swapped", a.where(), b.where())
	car := slices.Concat(fx.car[:a.off], fx.reframe(a, fx.car[b.data:b.end]), fx.car[a.end:b.off], fx.reframe(b, fx.car[a.data:a.end]), fx.car[b.end:])
	return carExpect(c, car)
}

func (fx *tamperFixture) sectionBytes(i int) []byte { return fx.car[fx.secs[i].off:fx.secs[i].end] }

// reframe is section s with its data replaced.
func (fx *tamperFixture) reframe(s carSec, data []byte) []byte {
	cidBytes := s.cid.Bytes()
	return slices.Concat(binary.AppendUvarint(nil, uint64(len(cidBytes)+len(data))), cidBytes, data)
}

// carExpect verifies the mutated export car and checks the first failure
// against where car first differs from the original.
func carExpect(c *tamperCase, car []byte) (string, error) {
	fx := c.fx
	v := c.verifyCAR(car)
	p := 0
	for p < len(car) && p < len(fx.car) && car[p] == fx.car[p] {
		p++
	}
	if p == len(car) && p == len(fx.car) {
		return "", fmt.Errorf("the mutation changed nothing")
	}
	if p < fx.carHead {
		// The header: unreadable, or roots that name other blocks, which
		// shows once their chains are read (other damage may fail
		// earlier). A root whose chain the reader never finished, because
		// later damage broke the framing, cannot be checked.
		class, err := expectAnyText(v, "header", "root ")
		if err != nil && slices.ContainsFunc(v.rep.Failures, func(f verify.Failure) bool {
			return f.Validator == "" && strings.Contains(f.Reason, "malformed archive")
		}) {
			return classRootsUnread, nil
		}
		return class, err
	}
	s := fx.section(p)
	if p == len(car) && p == s.off {
		return carCut(fx, v, p)
	}
	off, index := s.off, s.index
	if p >= len(fx.car) { // bytes appended after the last section
		off, index = len(fx.car), len(fx.secs)
	}
	where := fmt.Sprintf("section %d at byte %d", index, off)
	class, err := expectText(v, where)
	if err != nil || p < s.data || p >= len(fx.car) || len(car) < s.end {
		// Framing (varint, CID) or a cut: the section is named.
		return class, err
	}
	// Within a section's data: the failure is that object's.
	b := s.blk
	switch {
	case s.transcript >= 0:
		return expectAt(v, spot{b.v.String(), b.height, b.cid.String(), s.transcript})
	case s.decision:
		return expectAt(v, spot{b.v.String(), b.height, b.cid.String(), -1})
	}
	// The block's own bytes: named by their section and CID, and by the
	// chain position unless the damaged bytes no longer say it or claim
	// another one.
	f := v.rep.Failures[0]
	if f.CID != s.cid.String() {
		return class, fmt.Errorf("first failure %q does not name block %s", f, s.cid)
	}
	if claimed, err := record.DecodeBlock(car[s.data:s.end]); err != nil || claimed.Validator != b.v || claimed.Height != b.height {
		return class, nil
	}
	if f.Validator == "" && !fx.blockReadable(car, b.v) {
		// What damaged bytes claim is not used: with no block of the
		// chain intact where the reader can get to it, nothing in the
		// archive tells the chain's validator.
		return class, nil
	}
	return expectAt(v, spot{b.v.String(), b.height, b.cid.String(), -1})
}

// blockReadable reports whether car holds a block of v's chain byte for
// byte where the export has it, after sections whose framing (length and
// CID) is intact.
func (fx *tamperFixture) blockReadable(car []byte, v [32]byte) bool {
	for _, s := range fx.secs {
		if s.end > len(car) || !bytes.Equal(car[s.off:s.data], fx.car[s.off:s.data]) {
			return false
		}
		if s.block && s.blk.v == v && bytes.Equal(car[s.data:s.end], fx.car[s.data:s.end]) {
			return true
		}
	}
	return false
}

// carCut judges an archive that ends at byte p, a section boundary of the
// original: the first missing section's block must be named.
func carCut(fx *tamperFixture, v verdict, p int) (string, error) {
	s := fx.section(p)
	b := s.blk
	switch {
	case !s.block:
		// The block is there and its objects are not.
		if class, err := expectText(v, fmt.Sprintf("at byte %d", p)); err != nil {
			return class, err
		}
		return expectAt(v, spot{b.v.String(), b.height, b.cid.String(), s.transcript})
	case b.height > 0:
		// The chain ends a block early: its root names another.
		prev := fx.blockAt(b.v, b.height-1)
		if class, err := expectText(v, "root "); err != nil {
			return class, err
		}
		return expectAt(v, spot{b.v.String(), prev.height, prev.cid.String(), -1})
	default:
		// Whole chains are missing.
		return expectText(v, fmt.Sprintf("ends at byte %d", p))
	}
}

func (fx *tamperFixture) blockAt(v [32]byte, h uint64) *fixBlock {
	for i := range fx.blocks {
		if fx.blocks[i].v == v && fx.blocks[i].height == h {
			return &fx.blocks[i]
		}
	}
	panic(fmt.Sprintf("no block at height %d", h))
}
