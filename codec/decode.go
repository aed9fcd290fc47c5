package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"
	"unsafe"

	"github.com/fxamacker/cbor/v2"
)

// The direct decoder reads a value of a planned type (plan.go) in one pass
// and accepts exactly the bytes Marshal writes for some value of that type:
// every head in its shortest form, every struct field present with its key
// in canonical order, nothing else. Unmarshal's general path decodes with
// fxamacker and then re-encodes to compare, which decides the same thing at
// several times the cost; FuzzCanonicalMatchesReencode holds the two to the
// same verdict and the same decoded value on every input.

// CBOR major types, shifted into place.
const (
	majorUint  byte = 0 << 5
	majorNeg   byte = 1 << 5
	majorBytes byte = 2 << 5
	majorText  byte = 3 << 5
	majorArray byte = 4 << 5
	majorMap   byte = 5 << 5
	majorTag   byte = 6 << 5
	majorOther byte = 7 << 5
)

const (
	cborFalse = 0xf4
	cborTrue  = 0xf5
	cborNull  = 0xf6
)

var majorNames = [8]string{"unsigned integer", "negative integer", "byte string", "text string", "array", "map", "tag", "simple value or float"}

// appendHead appends the shortest head of major type major with argument n.
func appendHead(b []byte, major byte, n uint64) []byte {
	switch {
	case n < 24:
		return append(b, major|byte(n))
	case n <= 0xff:
		return append(b, major|24, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, major|25), uint16(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, major|26), uint32(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, major|27), n)
	}
}

// unmarshalDirect decodes data into a fresh value of p's type and stores it
// in v (a settable value of that type) only on success.
func unmarshalDirect(data []byte, p *plan, v reflect.Value, borrow bool) error {
	fresh := reflect.New(p.typ).Elem()
	d := decoder{data: data, borrow: borrow}
	if err := d.value(p, fresh, 0); err != nil {
		return err
	}
	if d.off != len(data) {
		return fmt.Errorf("%d trailing bytes: %w", len(data)-d.off, ErrNotCanonical)
	}
	v.Set(fresh)
	return nil
}

type decoder struct {
	data []byte
	off  int
	// borrow makes text and byte strings alias data instead of copying it
	// (UnmarshalBorrowed).
	borrow bool
}

// value reads the next item into v following p. depth is the nesting the
// item sits at, counted as fxamacker's well-formedness check counts it.
func (d *decoder) value(p *plan, v reflect.Value, depth int) error {
	switch p.kind {
	case planBool:
		b, err := d.peek()
		if err != nil {
			return err
		}
		if b != cborFalse && b != cborTrue {
			return d.typeError(b, "a bool")
		}
		d.off++
		v.SetBool(b == cborTrue)
	case planUint:
		n, err := d.uint(p.bits)
		if err != nil {
			return err
		}
		v.SetUint(n)
	case planInt:
		n, err := d.integer(p.bits)
		if err != nil {
			return err
		}
		v.SetInt(n)
	case planString:
		str, err := d.text()
		if err != nil {
			return err
		}
		v.SetString(str)
	case planBytes:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		v.SetBytes(b)
	case planByteArray:
		if err := d.byteArray(v.Bytes()); err != nil {
			return err
		}
	case planSlice:
		return d.slice(p, v, depth)
	case planPointer:
		b, err := d.peek()
		if err != nil {
			return err
		}
		if b == cborNull {
			d.off++
			v.SetZero()
			return nil
		}
		target := reflect.New(p.elem.typ)
		if err := d.value(p.elem, target.Elem(), depth); err != nil {
			return err
		}
		v.Set(target)
	case planStruct:
		return d.structure(p, v, depth)
	case planLink:
		return d.link(v.Addr().Interface().(*Link))
	case planCustom:
		return d.custom(p, v, depth)
	default:
		return fmt.Errorf("codec: no decoder for plan kind %d", p.kind)
	}
	return nil
}

// uint reads an unsigned integer that must fit in bits bits.
func (d *decoder) uint(bits int) (uint64, error) {
	n, err := d.head(majorUint)
	if err != nil {
		return 0, err
	}
	if bits < 64 && n>>bits != 0 {
		return 0, fmt.Errorf("integer %d overflows %d bits", n, bits)
	}
	return n, nil
}

// integer reads a signed integer that must fit in bits bits.
func (d *decoder) integer(bits int) (int64, error) {
	b, err := d.peek()
	if err != nil {
		return 0, err
	}
	major := b & 0xe0
	if major != majorUint && major != majorNeg {
		return 0, d.typeError(b, "an integer")
	}
	n, err := d.head(major)
	if err != nil {
		return 0, err
	}
	// Both signs reach at most 2^(bits-1)-1 in the argument: -1-n is the
	// most negative value for n = 2^(bits-1)-1.
	if n>>(bits-1) != 0 {
		return 0, fmt.Errorf("integer overflows %d bits", bits)
	}
	if major == majorNeg {
		return -1 - int64(n), nil
	}
	return int64(n), nil
}

func (d *decoder) slice(p *plan, v reflect.Value, depth int) error {
	n, err := d.arrayLen()
	if err != nil {
		return err
	}
	// Room for what the head claims only up to preallocated elements;
	// past that the slice grows as elements decode. A head may claim an
	// element per byte left, and an element may take tens of bytes of
	// memory: allocating for the claim let a 1 MB input cost 32 MiB
	// before its first element failed.
	s := reflect.MakeSlice(p.typ, min(n, preallocated), min(n, preallocated))
	for i := range n {
		if i == s.Len() {
			grown := reflect.MakeSlice(p.typ, min(2*i, n), min(2*i, n))
			reflect.Copy(grown, s)
			s = grown
		}
		if err := d.value(p.elem, s.Index(i), depth+1); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	v.Set(s)
	return nil
}

// preallocated bounds the elements an array head gets room for before
// they are read.
const preallocated = 1024

func (d *decoder) structure(p *plan, v reflect.Value, depth int) error {
	if !bytes.HasPrefix(d.data[d.off:], p.head) {
		b, err := d.peek()
		if err != nil {
			return err
		}
		if b&0xe0 != majorMap {
			return d.typeError(b, "a map")
		}
		return fmt.Errorf("%s: map head % x, want %d fields (% x): %w", p.typ, d.data[d.off:min(d.off+9, len(d.data))], len(p.fields), p.head, ErrNotCanonical)
	}
	d.off += len(p.head)
	for i := range p.fields {
		f := &p.fields[i]
		if !bytes.HasPrefix(d.data[d.off:], f.key) {
			return fmt.Errorf("%s: field %q does not come next (a field is missing, unknown, or out of order): %w", p.typ, f.name, ErrNotCanonical)
		}
		d.off += len(f.key)
		fv := v.Field(f.index[0])
		for _, j := range f.index[1:] {
			fv = fv.Field(j)
		}
		if err := d.value(f.plan, fv, depth+1); err != nil {
			return fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	return nil
}

// link reads a Link exactly as Link.UnmarshalCBOR and then MarshalCBOR
// would accept it: null, or tag 42 over a byte string of 0x00 and a binary
// CID that re-serializes to the same bytes.
func (d *decoder) link(l *Link) error {
	b, err := d.peek()
	if err != nil {
		return err
	}
	if b == cborNull {
		d.off++
		*l = Link{}
		return nil
	}
	if !bytes.HasPrefix(d.data[d.off:], []byte{majorTag | 24, linkTag}) {
		return fmt.Errorf("link: want tag 42 (d8 2a) or null, got % x", d.data[d.off:min(d.off+3, len(d.data))])
	}
	d.off += 2
	raw, err := d.str(majorBytes)
	if err != nil {
		return fmt.Errorf("link: %w", err)
	}
	c, err := linkCID(raw)
	if err != nil {
		return err
	}
	if c.KeyString() != string(raw[1:]) {
		return fmt.Errorf("link: CID does not re-encode to its bytes: %w", ErrNotCanonical)
	}
	*l = Link{c}
	return nil
}

// custom reads a type with its own MarshalCBOR and UnmarshalCBOR the way
// the general path does: the item goes to UnmarshalCBOR (after any
// self-described CBOR tags, which fxamacker strips), and MarshalCBOR of
// the value must give the item back. The encoder would also check that
// output for well-formedness and valid built-in tags; skipItem checked the
// item, which is the same bytes, for both. An item the plan's memo
// remembers is not read again.
func (d *decoder) custom(p *plan, v reflect.Value, depth int) error {
	start := d.off
	end, err := skipItem(d.data, start, depth)
	if err != nil {
		return err
	}
	d.off = end
	item := d.data[start:end]
	if p.memo != nil && p.memo.get(item, v) {
		return nil
	}
	ptr := v.Addr().Interface()
	if err := ptr.(cbor.Unmarshaler).UnmarshalCBOR(stripSelfDescribed(item)); err != nil {
		return err
	}
	again, err := ptr.(cbor.Marshaler).MarshalCBOR()
	if err != nil {
		return fmt.Errorf("re-encode %s: %w", v.Type(), err)
	}
	if !bytes.Equal(again, item) {
		return fmt.Errorf("%s: %w", v.Type(), ErrNotCanonical)
	}
	if p.memo != nil {
		p.memo.put(item, v)
	}
	return nil
}

func (d *decoder) peek() (byte, error) {
	if d.off >= len(d.data) {
		return 0, io.ErrUnexpectedEOF
	}
	return d.data[d.off], nil
}

// head reads the head of an item that must be of major type major, with
// its argument in the shortest form.
func (d *decoder) head(major byte) (uint64, error) {
	b, err := d.peek()
	if err != nil {
		return 0, err
	}
	if b&0xe0 != major {
		return 0, d.typeError(b, "a "+majorNames[major>>5])
	}
	ai := b & 0x1f
	if ai < 24 {
		d.off++
		return uint64(ai), nil
	}
	if ai > 27 {
		return 0, fmt.Errorf("%s with additional information %d (indefinite length or reserved)", majorNames[major>>5], ai)
	}
	size := 1 << (ai - 24)
	if len(d.data)-d.off-1 < size {
		return 0, io.ErrUnexpectedEOF
	}
	arg := d.data[d.off+1 : d.off+1+size]
	var n, least uint64
	switch size {
	case 1:
		n, least = uint64(arg[0]), 24
	case 2:
		n, least = uint64(binary.BigEndian.Uint16(arg)), 1<<8
	case 4:
		n, least = uint64(binary.BigEndian.Uint32(arg)), 1<<16
	default:
		n, least = binary.BigEndian.Uint64(arg), 1<<32
	}
	if n < least {
		return 0, fmt.Errorf("%s argument %d in %d bytes, not the shortest form: %w", majorNames[major>>5], n, size, ErrNotCanonical)
	}
	d.off += 1 + size
	return n, nil
}

// str reads a definite string of major type major and returns its bytes,
// which alias the input.
func (d *decoder) str(major byte) ([]byte, error) {
	n, err := d.head(major)
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.data)-d.off) {
		return nil, io.ErrUnexpectedEOF
	}
	b := d.data[d.off : d.off+int(n)]
	d.off += int(n)
	return b, nil
}

// arrayLen reads an array head. Every element takes at least a byte: a
// count the data cannot hold is refused before anything is allocated for
// it.
func (d *decoder) arrayLen() (int, error) {
	n, err := d.head(majorArray)
	if err != nil {
		return 0, err
	}
	if n > maxArray {
		return 0, fmt.Errorf("array of %d elements exceeds the limit of %d", n, maxArray)
	}
	if n > uint64(len(d.data)-d.off) {
		return 0, io.ErrUnexpectedEOF
	}
	return int(n), nil
}

// text reads a UTF-8 text string: aliasing the input when borrowing, a
// copy otherwise.
func (d *decoder) text() (string, error) {
	b, err := d.str(majorText)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("text string is not valid UTF-8")
	}
	if d.borrow {
		return unsafe.String(unsafe.SliceData(b), len(b)), nil
	}
	return string(b), nil
}

// bytes reads a byte string: aliasing the input when borrowing, a copy
// otherwise, never nil (as fxamacker decodes an empty one).
func (d *decoder) bytes() ([]byte, error) {
	b, err := d.str(majorBytes)
	if err != nil {
		return nil, err
	}
	if d.borrow {
		return b[:len(b):len(b)], nil
	}
	return append(make([]byte, 0, len(b)), b...), nil
}

// byteArray reads a byte string of exactly len(dst) bytes into dst.
func (d *decoder) byteArray(dst []byte) error {
	b, err := d.str(majorBytes)
	if err != nil {
		return err
	}
	if len(b) != len(dst) {
		return fmt.Errorf("byte string of %d bytes, want %d: %w", len(b), len(dst), ErrNotCanonical)
	}
	copy(dst, b)
	return nil
}

func (d *decoder) typeError(b byte, want string) error {
	if b>>5 == 7 {
		return fmt.Errorf("found simple value or float 0x%02x where %s belongs", b, want)
	}
	return fmt.Errorf("found a %s where %s belongs", majorNames[b>>5], want)
}
