package layout

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseRef: a stored transcript ref parses only from at least 18
// bytes, and writes back to the same bytes.
func FuzzParseRef(f *testing.F) {
	f.Add(Ref{Leaf: 7, Height: 3, CID: []byte{1, 0x71, 0x12, 0x20}}.Append(nil))
	f.Add(make([]byte, 17))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRef(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) || len(b) >= 18 {
				t.Fatalf("%d bytes: %v", len(b), err)
			}
			return
		}
		if !bytes.Equal(r.Append(nil), b) {
			t.Fatalf("% x does not round-trip", b)
		}
	})
}
