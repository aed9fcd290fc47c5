package challenge

import (
	"errors"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// FuzzParseSeed: a seed reads only from 64 lower-case hex digits, which
// are the seed's own.
func FuzzParseSeed(f *testing.F) {
	f.Add("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf")
	f.Add("A0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf")
	f.Fuzz(func(t *testing.T, s string) {
		seed, err := ParseSeed(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		id := ID{Env: "x", Version: 1, Seed: seed}
		if got := id.String()[len("x.v1."):]; got != s {
			t.Fatalf("accepted %q but it prints as %q", s, got)
		}
	})
}

// FuzzIDCBOR: an ID read from CBOR (a byte string of its binary form)
// writes back to the same CBOR and the same text.
func FuzzIDCBOR(f *testing.F) {
	b, _ := sampleID(&testing.T{}).MarshalCBOR()
	f.Add(b)
	f.Add([]byte{0x40})
	f.Fuzz(func(t *testing.T, data []byte) {
		var id ID
		if err := id.UnmarshalCBOR(data); err != nil {
			return
		}
		out, err := id.MarshalCBOR()
		if err != nil {
			t.Fatalf("accepted % x but it does not encode: %v", data, err)
		}
		var raw []byte
		if cbor.Unmarshal(data, &raw) != nil {
			t.Fatal("accepted what is not a byte string")
		}
		var back ID
		if err := back.UnmarshalCBOR(out); err != nil || back != id {
			t.Fatalf("% x does not round-trip: %v", data, err)
		}
		var fromText ID
		if err := fromText.UnmarshalText([]byte(id.String())); err != nil || fromText != id {
			t.Fatalf("%s does not read back from text: %v", id, err)
		}
	})
}
