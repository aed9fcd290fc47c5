// Package scale is the subset of Parity's SCALE codec that the chain needs:
// fixed-width little-endian integers, compact integers, byte and u16
// vectors, booleans and options (spec/chain.md, "SCALE"). It is written from
// the SCALE specification rather than taken from a Substrate client so that
// every byte the chain signs or hashes is visible in this repository and
// testable against hand-computed vectors.
//
// The Decoder is strict: it accepts only the canonical encoding (compact
// integers in their shortest mode), bounds every length before allocating,
// and reports the first error with the byte offset where it happened. It
// never panics.
package scale

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed SCALE")

// Encoder appends SCALE encodings to a buffer. The zero value is ready.
type Encoder struct{ buf []byte }

// Bytes returns the encoding so far.
func (e *Encoder) Bytes() []byte { return e.buf }

// U8 appends one byte.
func (e *Encoder) U8(v uint8) { e.buf = append(e.buf, v) }

// Bool appends 0x01 for true, 0x00 for false.
func (e *Encoder) Bool(v bool) {
	if v {
		e.U8(1)
	} else {
		e.U8(0)
	}
}

// U16 appends v little-endian.
func (e *Encoder) U16(v uint16) { e.buf = binary.LittleEndian.AppendUint16(e.buf, v) }

// U32 appends v little-endian.
func (e *Encoder) U32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }

// U64 appends v little-endian.
func (e *Encoder) U64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

// Fixed appends b as is: a fixed-size array ([u8; N]) has no length prefix.
func (e *Encoder) Fixed(b []byte) { e.buf = append(e.buf, b...) }

// Compact appends v in SCALE's compact form: the two low bits of the first
// byte select 1, 2 or 4 bytes holding v<<2, or (0b11) a big-integer mode
// whose first byte holds the byte count minus 4.
func (e *Encoder) Compact(v uint64) {
	switch {
	case v < 1<<6:
		e.U8(uint8(v << 2))
	case v < 1<<14:
		e.U16(uint16(v<<2 | 0b01))
	case v < 1<<30:
		e.U32(uint32(v<<2 | 0b10))
	default:
		n := (bits.Len64(v) + 7) / 8
		e.U8(uint8((n-4)<<2 | 0b11))
		for i := 0; i < n; i++ {
			e.U8(uint8(v >> (8 * i)))
		}
	}
}

// VecU8 appends a Vec<u8>: compact length, then the bytes.
func (e *Encoder) VecU8(b []byte) {
	e.Compact(uint64(len(b)))
	e.Fixed(b)
}

// VecU16 appends a Vec<u16>: compact length, then each element.
func (e *Encoder) VecU16(vs []uint16) {
	e.Compact(uint64(len(vs)))
	for _, v := range vs {
		e.U16(v)
	}
}

// Decoder reads SCALE from a byte slice. After the first error every read
// returns zero values and Err reports that error.
type Decoder struct {
	b   []byte
	off int
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first error, if any.
func (d *Decoder) Err() error { return d.err }

// Offset is the number of bytes consumed.
func (d *Decoder) Offset() int { return d.off }

// Remaining is the number of bytes not yet read.
func (d *Decoder) Remaining() int { return len(d.b) - d.off }

// Fail records err (wrapped with ErrMalformed and the offset) unless an
// error is already recorded. Callers use it for type-level checks, such as
// an unknown enum variant.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
	}
}

// Finish fails if any byte is left unread and returns Err.
func (d *Decoder) Finish() error {
	if d.err == nil && d.off != len(d.b) {
		d.Fail("%d trailing bytes", len(d.b)-d.off)
	}
	return d.err
}

// take consumes n bytes; what names them in the error, "" for [u8; n]
// (formatted only on failure: decoders call Fixed for every string).
func (d *Decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		if what == "" {
			what = fmt.Sprintf("[u8; %d]", n)
		}
		d.Fail("%s needs %d bytes, %d left", what, n, len(d.b)-d.off)
		return nil
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s
}

// U8 reads one byte.
func (d *Decoder) U8() uint8 {
	if s := d.take(1, "u8"); s != nil {
		return s[0]
	}
	return 0
}

// Bool reads 0x00 or 0x01; any other byte is an error.
func (d *Decoder) Bool() bool {
	at := d.off
	v := d.U8()
	if d.err == nil && v > 1 {
		d.off = at
		d.Fail("bool byte 0x%02x", v)
	}
	return v == 1
}

// U16 reads a little-endian u16.
func (d *Decoder) U16() uint16 {
	if s := d.take(2, "u16"); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

// U32 reads a little-endian u32.
func (d *Decoder) U32() uint32 {
	if s := d.take(4, "u32"); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// U64 reads a little-endian u64.
func (d *Decoder) U64() uint64 {
	if s := d.take(8, "u64"); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// Fixed reads n bytes (a copy).
func (d *Decoder) Fixed(n int) []byte {
	if s := d.take(n, ""); s != nil {
		return append([]byte(nil), s...)
	}
	return nil
}

// Compact reads a compact integer up to 64 bits and insists on the
// shortest mode, as Parity's codec does.
func (d *Decoder) Compact() uint64 {
	at := d.off
	first := d.U8()
	if d.err != nil {
		return 0
	}
	var v, min uint64
	switch first & 0b11 {
	case 0b00:
		return uint64(first >> 2)
	case 0b01:
		s := d.take(1, "compact (2-byte mode)")
		v, min = uint64(binary.LittleEndian.Uint16([]byte{first, s0(s)}))>>2, 1<<6
	case 0b10:
		s := d.take(3, "compact (4-byte mode)")
		if s != nil {
			v = uint64(binary.LittleEndian.Uint32([]byte{first, s[0], s[1], s[2]})) >> 2
		}
		min = 1 << 14
	default:
		n := int(first>>2) + 4
		if n > 8 {
			d.off = at
			d.Fail("compact integer of %d bytes exceeds 64 bits", n)
			return 0
		}
		s := d.take(n, "compact (big-integer mode)")
		for i := len(s) - 1; i >= 0; i-- {
			v = v<<8 | uint64(s[i])
		}
		min = 1 << 30
		if d.err == nil && n > 4 && v < 1<<(8*(n-1)) {
			d.off = at
			d.Fail("compact integer %d not in its shortest form", v)
			return 0
		}
	}
	if d.err == nil && v < min {
		d.off = at
		d.Fail("compact integer %d not in its shortest form", v)
		return 0
	}
	return v
}

func s0(s []byte) byte {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// Len reads a compact length and checks it against max elements and
// against the bytes left (each element takes at least minSize bytes), so a
// hostile length cannot make the caller allocate.
func (d *Decoder) Len(max int, minSize int, what string) int {
	at := d.off
	n := d.Compact()
	if d.err != nil {
		return 0
	}
	if n > uint64(max) {
		d.off = at
		d.Fail("%s has %d elements, at most %d allowed", what, n, max)
		return 0
	}
	if minSize > 0 && n > uint64(d.Remaining()/minSize) {
		d.off = at
		d.Fail("%s claims %d elements but only %d bytes are left", what, n, d.Remaining())
		return 0
	}
	return int(n)
}

// VecU8 reads a Vec<u8> of at most max bytes.
func (d *Decoder) VecU8(max int, what string) []byte {
	n := d.Len(max, 1, what)
	return d.Fixed(n)
}

// VecU16 reads a Vec<u16> of at most max elements.
func (d *Decoder) VecU16(max int, what string) []uint16 {
	n := d.Len(max, 2, what)
	if d.err != nil {
		return nil
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = d.U16()
	}
	return out
}
