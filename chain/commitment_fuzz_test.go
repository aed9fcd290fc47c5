package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParseValidatorCommitment: any pair of fields either is not ours
// (ErrNotOurs) or is a commitment whose fields are exactly the input.
func FuzzParseValidatorCommitment(f *testing.F) {
	good := ValidatorCommitment{Height: 812, Size: 4096, Root: [32]byte{1, 2, 3}}.Fields()
	f.Add(good[0].Bytes, good[1].Bytes)
	f.Add([]byte("lv1:0:0"), make([]byte, 32))
	f.Add([]byte("lv1:01:2"), make([]byte, 32))
	f.Add([]byte("lv1:18446744073709551616:1"), make([]byte, 32))
	f.Fuzz(func(t *testing.T, head, root []byte) {
		if len(head) > MaxRaw {
			return
		}
		fields := []Data{Raw(head), {Kind: DataSha256, Bytes: root}}
		v, err := ParseValidatorCommitment(fields)
		if err != nil {
			if !errors.Is(err, ErrNotOurs) {
				t.Fatalf("error does not wrap ErrNotOurs: %v", err)
			}
			return
		}
		again := v.Fields()
		if !bytes.Equal(again[0].Bytes, head) || !bytes.Equal(again[1].Bytes, root) {
			t.Fatalf("accepted %q but it re-encodes as %q", head, again[0].Bytes)
		}
	})
}

// FuzzDataJSON: a commitment field read from JSON passes Check and writes
// back to JSON that reads to the same field.
func FuzzDataJSON(f *testing.F) {
	for _, d := range []Data{Raw([]byte("lm1:o/m@r")), Sha256Field([32]byte{7}), {Kind: DataTimelock, Bytes: []byte{1, 2}, Round: 9}} {
		b, err := json.Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"raw","hex":"zz"}`))
	f.Add([]byte(`{"kind":"bigraw","hex":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Data
		if err := d.UnmarshalJSON(b); err != nil {
			return
		}
		if err := d.Check(); err != nil {
			t.Fatalf("accepted a field that fails Check: %v", err)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Data
		if err := back.UnmarshalJSON(out); err != nil || back.Kind != d.Kind || !bytes.Equal(back.Bytes, d.Bytes) || back.Round != d.Round {
			t.Fatalf("%s does not round-trip: %v", out, err)
		}
	})
}

// FuzzHashText: a hash reads from exactly 64 hex digits and prints back
// in lower case.
func FuzzHashText(f *testing.F) {
	f.Add([]byte("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))
	f.Add([]byte("0x112233"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Hash
		if err := h.UnmarshalText(b); err != nil {
			return
		}
		if len(b) != 64 || !bytes.EqualFold([]byte(h.String()), b) {
			t.Fatalf("accepted %q as %s", b, h)
		}
	})
}
