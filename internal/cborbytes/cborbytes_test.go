package cborbytes_test

import (
	"bytes"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/affine-ledger/ledger/internal/cborbytes"
)

var canonicalEnc = func() cbor.EncMode {
	em, err := cbor.CanonicalEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	return em
}()

// TestAppendMatchesFxamacker checks every head size against fxamacker's
// canonical encoder, and that Canonical reads each back.
func TestAppendMatchesFxamacker(t *testing.T) {
	for _, n := range []int{0, 1, 23, 24, 32, 64, 255, 256, 65535, 65536, 1 << 20} {
		b := bytes.Repeat([]byte{0xa5}, n)
		want, err := canonicalEnc.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got := cborbytes.Marshal(b)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: % x..., want % x...", n, got[:min(len(got), 10)], want[:min(len(want), 10)])
		}
		content, ok := cborbytes.Canonical(got)
		if !ok || !bytes.Equal(content, b) {
			t.Fatalf("%d bytes: Canonical of its own encoding: ok %v", n, ok)
		}
	}
}

// FuzzCanonical: Canonical accepts exactly the byte strings that decode
// with fxamacker and re-encode to the same bytes, and gives their content.
func FuzzCanonical(f *testing.F) {
	for _, s := range [][]byte{{0x40}, {0x58, 0x18}, {0x58, 0x05, 1, 2, 3, 4, 5}, {0x45, 1, 2, 3, 4, 5}, {0x5f, 0x41, 1, 0xff}, {0x60}, {0xf6}, {0x59, 0x00, 0x01, 0}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		content, ok := cborbytes.Canonical(data)
		var b []byte
		canonical := false
		if len(data) > 0 && data[0]&0xe0 == 0x40 {
			if err := cbor.Unmarshal(data, &b); err == nil {
				again, err := canonicalEnc.Marshal(b)
				canonical = err == nil && bytes.Equal(again, data)
			}
		}
		if ok != canonical {
			t.Fatalf("% x: Canonical %v, fxamacker round trip %v", data, ok, canonical)
		}
		if ok && !bytes.Equal(content, b) {
			t.Fatalf("% x: content % x, fxamacker % x", data, content, b)
		}
	})
}
