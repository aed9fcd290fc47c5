package codec

import "fmt"

// Cursor reads a record item by item with the direct decoder's rules
// (every head in its shortest form, exact types, definite lengths), for a
// decoder written by hand for one record that is decoded often enough for
// reflection to matter. Such a decoder must accept nothing that Unmarshal
// refuses and give the same value; the way to keep that true is to fall
// back to Unmarshal whenever the cursor fails, and to fuzz the two against
// each other.
//
// The first read that does not fit fails the cursor: that read and every
// later one return zero values, and Err says what went wrong.
type Cursor struct {
	d   decoder
	err error
}

// NewCursor reads data. With borrow, Text and Bytes alias data (as
// UnmarshalBorrowed does); otherwise they are copies.
func NewCursor(data []byte, borrow bool) *Cursor {
	return &Cursor{d: decoder{data: data, borrow: borrow}}
}

// Err is the cursor's first failure, or, once every read succeeded, an
// error if bytes are left over.
func (c *Cursor) Err() error {
	if c.err == nil && c.d.off != len(c.d.data) {
		return fmt.Errorf("%d trailing bytes: %w", len(c.d.data)-c.d.off, ErrNotCanonical)
	}
	return c.err
}

func (c *Cursor) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Map reads the head of a map that must have n pairs. A record's keys are
// then read with Key, in canonical order: with every field present, that
// order is the only one Unmarshal accepts.
func (c *Cursor) Map(n int) {
	if c.err != nil {
		return
	}
	got, err := c.d.head(majorMap)
	if err == nil && got != uint64(n) {
		err = fmt.Errorf("map of %d pairs, want %d: %w", got, n, ErrNotCanonical)
	}
	c.fail(err)
}

// Key reads a map key that must be name.
func (c *Cursor) Key(name string) {
	if c.err != nil {
		return
	}
	// A record's keys are short: read in place, a key is its head byte
	// (major type and length) and its bytes, one comparison.
	if d := &c.d; len(name) < 24 && len(d.data)-d.off > len(name) &&
		d.data[d.off] == majorText|byte(len(name)) && string(d.data[d.off+1:d.off+1+len(name)]) == name {
		d.off += 1 + len(name)
		return
	}
	start := c.d.off
	b, err := c.d.str(majorText)
	if err == nil && string(b) != name {
		c.d.off = start
		err = fmt.Errorf("key %q at offset %d, want %q (a field is missing, unknown, or out of order): %w", b, start, name, ErrNotCanonical)
	}
	c.fail(err)
}

// Uint reads an unsigned integer that must fit in bits bits.
func (c *Cursor) Uint(bits int) uint64 {
	if c.err != nil {
		return 0
	}
	n, err := c.d.uint(bits)
	c.fail(err)
	return n
}

// Int reads a signed integer that must fit in bits bits.
func (c *Cursor) Int(bits int) int64 {
	if c.err != nil {
		return 0
	}
	n, err := c.d.integer(bits)
	c.fail(err)
	return n
}

// Text reads a UTF-8 text string.
func (c *Cursor) Text() string {
	if c.err != nil {
		return ""
	}
	s, err := c.d.text()
	c.fail(err)
	return s
}

// Bytes reads a byte string; never nil, as Unmarshal decodes an empty one.
func (c *Cursor) Bytes() []byte {
	if c.err != nil {
		return nil
	}
	b, err := c.d.bytes()
	c.fail(err)
	return b
}

// BytesView reads a byte string and returns it aliasing the input, however
// the cursor was made: for a value that is parsed at once and not kept.
func (c *Cursor) BytesView() []byte {
	if c.err != nil {
		return nil
	}
	b, err := c.d.str(majorBytes)
	c.fail(err)
	return b
}

// ByteArray reads a byte string of exactly len(dst) bytes into dst.
func (c *Cursor) ByteArray(dst []byte) {
	if c.err == nil {
		c.fail(c.d.byteArray(dst))
	}
}

// Null consumes a null and reports true if one comes next.
func (c *Cursor) Null() bool {
	if c.err != nil {
		return false
	}
	if c.d.off < len(c.d.data) && c.d.data[c.d.off] == cborNull {
		c.d.off++
		return true
	}
	return false
}

// ArrayLen reads an array head. The count is bounded as Unmarshal bounds
// it, and by the bytes left (every element takes at least one), so that it
// is safe to allocate for.
func (c *Cursor) ArrayLen() int {
	if c.err != nil {
		return 0
	}
	n, err := c.d.arrayLen()
	c.fail(err)
	return n
}
