package scale

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The compact vectors are the examples of the SCALE specification
// (Substrate documentation, "SCALE codec", compact/general integers) plus
// the mode boundaries, computed by hand: v<<2 with the mode in the low bits.
func TestCompactVectors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v   uint64
		hex string
	}{
		{0, "00"},
		{1, "04"},
		{42, "a8"},
		{63, "fc"},
		{64, "0101"},
		{69, "1501"},
		{16383, "fdff"},
		{16384, "02000100"},
		{65535, "feff0300"},
		{1<<30 - 1, "feffffff"},
		{1 << 30, "0300000040"},
		{1<<32 - 1, "03ffffffff"},
		{1 << 32, "070000000001"},
		{100000000000000, "0b00407a10f35a"},
		{1<<64 - 1, "13ffffffffffffffff"},
	}
	for _, c := range cases {
		var e Encoder
		e.Compact(c.v)
		if got := hex.EncodeToString(e.Bytes()); got != c.hex {
			t.Errorf("compact %d = %s, want %s", c.v, got, c.hex)
		}
		raw, _ := hex.DecodeString(c.hex)
		d := NewDecoder(raw)
		if got := d.Compact(); got != c.v || d.Finish() != nil {
			t.Errorf("decode %s = %d (%v), want %d", c.hex, got, d.Err(), c.v)
		}
	}
}

func TestFixedWidthAndVectors(t *testing.T) {
	t.Parallel()
	var e Encoder
	e.U16(42)                                // 2a00
	e.U32(16777215)                          // ffffff00
	e.U64(1)                                 // 0100000000000000
	e.Bool(true)                             // 01
	e.VecU16([]uint16{4, 8, 15, 16, 23, 42}) // the spec's Vec<u16> example
	e.VecU8([]byte("abc"))
	want := "2a00" + "ffffff00" + "0100000000000000" + "01" + "18040008000f00100017002a00" + "0c616263"
	if got := hex.EncodeToString(e.Bytes()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	d := NewDecoder(e.Bytes())
	if d.U16() != 42 || d.U32() != 16777215 || d.U64() != 1 || !d.Bool() {
		t.Fatal("fixed-width round trip")
	}
	if v := d.VecU16(10, "v"); len(v) != 6 || v[5] != 42 {
		t.Fatalf("vec u16 %v", v)
	}
	if b := d.VecU8(10, "b"); !bytes.Equal(b, []byte("abc")) {
		t.Fatalf("vec u8 %q", b)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}

func TestDecoderRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		hex  string
		read func(*Decoder)
	}{
		{"non-canonical 2-byte", "0100", func(d *Decoder) { d.Compact() }},
		{"non-canonical 4-byte", "02000000", func(d *Decoder) { d.Compact() }},
		{"non-canonical big", "03ffffff3f", func(d *Decoder) { d.Compact() }},
		{"big with zero top byte", "070000000100", func(d *Decoder) { d.Compact() }},
		{"over 64 bits", "17000000000000000001", func(d *Decoder) { d.Compact() }},
		{"short u16", "01", func(d *Decoder) { d.U16() }},
		{"bool 2", "02", func(d *Decoder) { d.Bool() }},
		{"vec longer than input", "1000", func(d *Decoder) { d.VecU8(100, "x") }},
		{"vec over max", "0c616263", func(d *Decoder) { d.VecU8(2, "x") }},
		{"u16 vec odd bytes", "080100", func(d *Decoder) { d.VecU16(10, "x") }},
		{"trailing", "0000", func(d *Decoder) { d.U8() }},
	}
	for _, c := range cases {
		raw, _ := hex.DecodeString(c.hex)
		d := NewDecoder(raw)
		c.read(d)
		if err := d.Finish(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", c.name, err)
		}
	}
}

// TestFixedAllocation: Fixed allocates its copy and nothing else (a
// metadata decoder calls it for every string); its error still names the
// array.
func TestFixedAllocation(t *testing.T) {
	buf := make([]byte, 1<<12)
	d := NewDecoder(buf)
	if n := testing.AllocsPerRun(100, func() { d.Fixed(4) }); n != 1 {
		t.Errorf("Fixed(4) allocates %v times, want 1", n)
	}
	d = NewDecoder([]byte{1, 2})
	d.Fixed(5)
	if err := d.Err(); err == nil || !strings.Contains(err.Error(), "[u8; 5] needs 5 bytes, 2 left") {
		t.Errorf("short Fixed: %v", err)
	}
}

func FuzzCompact(f *testing.F) {
	f.Add([]byte{0x03, 0, 0, 0, 0x40})
	f.Add([]byte{0x13, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		v := d.Compact()
		if d.Err() != nil {
			return
		}
		var e Encoder
		e.Compact(v)
		if !bytes.Equal(e.Bytes(), data[:d.Offset()]) {
			t.Fatalf("accepted %x as %d, which encodes as %x", data[:d.Offset()], v, e.Bytes())
		}
	})
}
