package codec_test

import (
	"bytes"
	"fmt"
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
