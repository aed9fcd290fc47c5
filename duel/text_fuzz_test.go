package duel

import (
	"bytes"
	"testing"
)

// FuzzParsePPM: an accepted fraction is in [0, 1] and formats back to a
// string that parses to the same value.
func FuzzParsePPM(f *testing.F) {
	for _, s := range []string{"0.02", "0.6", "1", "1.000000", "0.0000001", "00.5", "1.5", "-0", "+1", "0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePPM(s)
		if err != nil {
			return
		}
		if v > PPM {
			t.Fatalf("%q parsed to %d ppm, over 1", s, v)
		}
		back, err := ParsePPM(FormatPPM(v))
		if err != nil || back != v {
			t.Fatalf("%q: %d formats as %q, which reads %d (%v)", s, v, FormatPPM(v), back, err)
		}
	})
}

// FuzzHexText: hashes read from 64 hex digits, byte strings from any even
// run of them; both print back the same digits in lower case.
func FuzzHexText(f *testing.F) {
	f.Add([]byte("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))
	f.Add([]byte("ABCD"))
	f.Add([]byte("abc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Hash
		if err := h.UnmarshalText(b); err == nil {
			out, _ := h.MarshalText()
			if !bytes.EqualFold(out, b) {
				t.Fatalf("hash %q prints as %q", b, out)
			}
		}
		var x HexBytes
		if err := x.UnmarshalText(b); err == nil {
			out, _ := x.MarshalText()
			if !bytes.EqualFold(out, b) {
				t.Fatalf("bytes %q print as %q", b, out)
			}
		}
	})
}
