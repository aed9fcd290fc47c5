package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

type cursorRecord struct {
	N    uint16 `cbor:"n"`
	I    int64  `cbor:"i"`
	Text string `cbor:"text"`
	Raw  []byte `cbor:"raw"`
	List []int8 `cbor:"list"`
}

// readRecord reads cursorRecord by hand, keys in canonical order.
func readRecord(data []byte, borrow bool) (cursorRecord, error) {
	var r cursorRecord
	c := codec.NewCursor(data, borrow)
	c.Map(5)
	c.Key("i")
	r.I = c.Int(64)
	c.Key("n")
	r.N = uint16(c.Uint(16))
	c.Key("raw")
	r.Raw = c.Bytes()
	c.Key("list")
	r.List = make([]int8, c.ArrayLen())
	for i := range r.List {
		r.List[i] = int8(c.Int(8))
	}
	c.Key("text")
	r.Text = c.Text()
	return r, c.Err()
}

func TestCursorReadsWhatMarshalWrites(t *testing.T) {
	want := cursorRecord{N: 300, I: -1 << 40, Text: "é🙂", Raw: []byte{1, 2}, List: []int8{-128, 0, 127}}
	data, err := codec.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, borrow := range []bool{false, true} {
		got, err := readRecord(data, borrow)
		if err != nil {
			t.Fatalf("borrow %v: %v", borrow, err)
		}
		if got.N != want.N || got.I != want.I || got.Text != want.Text || string(got.Raw) != string(want.Raw) || len(got.List) != 3 || got.List[0] != -128 || got.List[2] != 127 {
			t.Fatalf("borrow %v: read %+v, want %+v", borrow, got, want)
		}
	}
	// Copies do not alias the input; borrowed strings do.
	copied, _ := readRecord(data, false)
	borrowed, _ := readRecord(data, true)
	for i := range data {
		data[i] = 0
	}
	if copied.Text != want.Text || string(copied.Raw) != string(want.Raw) {
		t.Fatal("a copying cursor returned memory of its input")
	}
	if borrowed.Text == want.Text {
		t.Fatal("a borrowing cursor copied its text")
	}
}

// Each input is the record's encoding with one thing wrong; the cursor
// must fail and say what, as Unmarshal does.
func TestCursorRefusesWhatUnmarshalRefuses(t *testing.T) {
	good, err := codec.Marshal(cursorRecord{N: 7, Text: "ok", Raw: []byte{}, List: []int8{1}})
	if err != nil {
		t.Fatal(err)
	}
	enc := string(good)
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"long head", "\x61n\x07", "\x61n\x18\x07", "shortest"},
		{"overflow", "\x61n\x07", "\x61n\x1a\x00\x01\x00\x00", "overflows"},
		{"int8 overflow", "\x81\x01", "\x81\x18\x80", "overflows"},
		{"bad UTF-8", "\x62ok", "\x62\xff\xfe", "UTF-8"},
		{"key out of order", "\x61i", "\x61j", "want \"i\""},
		{"map size", "\xa5", "\xa4", "want 5"},
		{"trailing byte", "\x62ok", "\x62ok\x00", "1 trailing bytes"},
		{"cut", "\x62ok", "\x62o", "EOF"},
		{"text for bytes", "\x63raw\x40", "\x63raw\x60", "byte string"},
		{"true for an integer", "\x61n\x07", "\x61n\xf5", "found simple value or float 0xf5 where"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(enc, tc.from) {
				t.Fatalf("%q is not in the encoding % x", tc.from, good)
			}
			bad := []byte(strings.Replace(enc, tc.from, tc.to, 1))
			var ref cursorRecord
			if codec.Unmarshal(bad, &ref) == nil {
				t.Fatalf("Unmarshal accepts % x: the case tests nothing", bad)
			}
			_, err := readRecord(bad, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("cursor error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestCursorRefusesEveryPrefix: every cut of a record's encoding, however
// it falls (inside a head, a key, a string), is an error, never a panic or
// a record read from fewer bytes.
func TestCursorRefusesEveryPrefix(t *testing.T) {
	data, err := codec.Marshal(cursorRecord{N: 300, I: -1 << 40, Text: "é🙂", Raw: []byte{1, 2}, List: []int8{-128, 0, 127}})
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		for _, borrow := range []bool{false, true} {
			if _, err := readRecord(data[:n:n], borrow); err == nil {
				t.Fatalf("the first %d of %d bytes read as a whole record", n, len(data))
			}
		}
	}
}

func TestCursorStaysFailed(t *testing.T) {
	c := codec.NewCursor([]byte{0x18, 0x01, 0x05}, false) // 1 in two bytes, then 5
	if n := c.Uint(64); n != 0 {
		t.Fatalf("non-shortest head read as %d", n)
	}
	first := c.Err()
	if !errors.Is(first, codec.ErrNotCanonical) {
		t.Fatalf("error %v, want ErrNotCanonical", first)
	}
	if n := c.Uint(64); n != 0 || c.Err() != first {
		t.Fatalf("a failed cursor read %d and now says %v", n, c.Err())
	}
}
