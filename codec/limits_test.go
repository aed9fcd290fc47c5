package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

type blob struct {
	B []byte `cbor:"b"`
}

// TestMaxRecordBytes: every decoding path accepts a canonical record of
// exactly MaxRecordBytes and refuses one of a byte more, naming the limit.
func TestMaxRecordBytes(t *testing.T) {
	if !codec.HasPlan(new(blob)) {
		t.Fatal("blob has no direct plan: the direct path would go untested")
	}
	// {"b": h'...'}: a 1-byte map head, the 2-byte key, a 5-byte string head.
	record := func(size int) []byte {
		data, err := codec.Marshal(blob{B: bytes.Repeat([]byte{0xab}, size-8)})
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != size {
			t.Fatalf("record of %d bytes, want %d", len(data), size)
		}
		return data
	}
	exact, over := record(codec.MaxRecordBytes), record(codec.MaxRecordBytes+1)
	for _, tc := range []struct {
		name   string
		decode func([]byte) (int, error) // the length of the blob decoded
	}{
		{"direct", func(d []byte) (int, error) { var b blob; err := codec.Unmarshal(d, &b); return len(b.B), err }},
		{"borrowed", func(d []byte) (int, error) { var b blob; err := codec.UnmarshalBorrowed(d, &b); return len(b.B), err }},
		{"general", func(d []byte) (int, error) {
			var v any
			if err := codec.Unmarshal(d, &v); err != nil {
				return 0, err
			}
			b, _ := v.(map[any]any)["b"].([]byte)
			return len(b), nil
		}},
		{"reencode", func(d []byte) (int, error) { var b blob; err := codec.UnmarshalReencode(d, &b); return len(b.B), err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := tc.decode(exact)
			if err != nil || n != codec.MaxRecordBytes-8 {
				t.Fatalf("record of exactly %d bytes: decoded %d bytes of blob, err %v", codec.MaxRecordBytes, n, err)
			}
			_, err = tc.decode(over)
			if want := fmt.Sprintf("%d-byte limit", codec.MaxRecordBytes); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("record of %d bytes: err = %v, want one naming the %s", codec.MaxRecordBytes+1, err, want)
			}
		})
	}
}

// TestCountAndNestingLimits: an array of exactly MaxArray elements, a map
// of MaxMapPairs pairs and MaxDepth levels of nesting decode, by the
// direct decoder and the general one; one element, pair or level more is
// refused, with an error naming the limit.
func TestCountAndNestingLimits(t *testing.T) {
	array := func(n int) []byte {
		// A 5-byte head (0x9a and a 4-byte count), then n zeros.
		return append([]byte{0x9a, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, make([]byte, n)...)
	}
	pairs := func(n int) []byte {
		// {"k00000": 0, ...}: keys of one length sort bytewise. The
		// encoder refuses more than MaxMapPairs pairs, so the head of
		// the last map is written by hand.
		m := make(map[string]int, codec.MaxMapPairs)
		for i := range min(n, codec.MaxMapPairs) {
			m[fmt.Sprintf("k%05d", i)] = i
		}
		data, err := codec.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := codec.MaxMapPairs; i < n; i++ {
			data = append(append(data, fmt.Sprintf("\x66k%05d", i)...), 0x19, byte(i>>8), byte(i))
		}
		return append([]byte{0xb9, byte(n >> 8), byte(n)}, data[3:]...)
	}
	nested := func(levels int) []byte {
		// levels-1 arrays of one element around an empty array.
		return append(bytes.Repeat([]byte{0x81}, levels-1), 0x80)
	}
	type listRecord struct {
		L []int8 `cbor:"l"`
	}
	if !codec.HasPlan(new(listRecord)) {
		t.Fatal("listRecord has no direct plan: the direct path would go untested")
	}
	for _, tc := range []struct {
		name  string
		bound int
		make  func(n int) []byte
		want  string
	}{
		{"array", codec.MaxArray, array, "max number of elements 1048576"},
		{"map", codec.MaxMapPairs, pairs, "max number of key-value pairs 4096"},
		{"nesting", codec.MaxDepth, nested, "max nested level 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := codec.Unmarshal(tc.make(tc.bound), &v); err != nil {
				t.Fatalf("%s at exactly %d: %v", tc.name, tc.bound, err)
			}
			if err := codec.Unmarshal(tc.make(tc.bound+1), &v); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s at %d: err = %v, want one naming the limit %s", tc.name, tc.bound+1, err, tc.want)
			}
		})
	}
	// What Unmarshal refuses Marshal does not write.
	t.Run("marshal", func(t *testing.T) {
		if _, err := codec.Marshal(make([]int8, codec.MaxArray)); err != nil {
			t.Fatalf("array of exactly %d: %v", codec.MaxArray, err)
		}
		want := fmt.Sprintf("array of %d elements exceeds the limit of %d", codec.MaxArray+1, codec.MaxArray)
		if _, err := codec.Marshal(make([]int8, codec.MaxArray+1)); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("array of %d: err = %v, want one saying %q", codec.MaxArray+1, err, want)
		}
		m := map[string]int{}
		for i := range codec.MaxMapPairs + 1 {
			m[fmt.Sprint(i)] = i
		}
		want = fmt.Sprintf("map of %d pairs exceeds the limit of %d", codec.MaxMapPairs+1, codec.MaxMapPairs)
		if _, err := codec.Marshal(m); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("map of %d pairs: err = %v, want one saying %q", codec.MaxMapPairs+1, err, want)
		}
	})
	// The direct decoder's own words, for an array in a record.
	t.Run("array in a record", func(t *testing.T) {
		record := func(n int) []byte { return append([]byte{0xa1, 0x61, 'l'}, array(n)...) }
		var r listRecord
		if err := codec.Unmarshal(record(codec.MaxArray), &r); err != nil || len(r.L) != codec.MaxArray {
			t.Fatalf("array of exactly %d: %d elements read, err %v", codec.MaxArray, len(r.L), err)
		}
		want := fmt.Sprintf("array of %d elements exceeds the limit of %d", codec.MaxArray+1, codec.MaxArray)
		if err := codec.Unmarshal(record(codec.MaxArray+1), &r); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("array of %d: err = %v, want one saying %q", codec.MaxArray+1, err, want)
		}
	})
}

// TestCursorArrayLenBoundedByInput: an array head claiming more elements
// than bytes are left is refused by ArrayLen, so that its caller never
// allocates for elements that cannot follow.
func TestCursorArrayLenBoundedByInput(t *testing.T) {
	// An array of 100 elements with 99 bytes after its head.
	data := append([]byte{0x98, 100}, make([]byte, 99)...)
	c := codec.NewCursor(data, false)
	if n := c.ArrayLen(); n != 0 || !errors.Is(c.Err(), io.ErrUnexpectedEOF) {
		t.Fatalf("ArrayLen = %d, err %v; want 0 and io.ErrUnexpectedEOF", n, c.Err())
	}
	// With the 100th byte it is read.
	c = codec.NewCursor(append(data, 0), false)
	if n := c.ArrayLen(); n != 100 || c.Err() == nil {
		// Err reports the elements left unread as trailing bytes.
		t.Fatalf("ArrayLen = %d, err %v; want 100 and 100 trailing bytes", n, c.Err())
	}
}
