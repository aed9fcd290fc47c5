package challenge

import (
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

func sampleID(t *testing.T) ID {
	t.Helper()
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(0xa0 + i)
	}
	id, err := New("mult8", 1, seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestTextRoundTrip(t *testing.T) {
	id := sampleID(t)
	s := id.String()
	if !strings.HasPrefix(s, "mult8.v1.a0a1a2") || len(s) != len("mult8.v1.")+64 {
		t.Fatalf("text form %q", s)
	}
	back, err := Parse(s)
	if err != nil || back != id {
		t.Fatalf("Parse(%q) = %v, %v", s, back, err)
	}
}

func TestBinaryAndCBORRoundTrip(t *testing.T) {
	id := sampleID(t)
	b, err := id.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != 5 || string(b[1:6]) != "mult8" || b[6] != 0 || b[7] != 1 || len(b) != 40 {
		t.Fatalf("binary form % x", b)
	}
	var back ID
	if err := back.UnmarshalBinary(b); err != nil || back != id {
		t.Fatalf("binary round trip: %v %v", back, err)
	}
	enc, err := codec.Marshal(struct {
		C ID `cbor:"c"`
	}{id})
	if err != nil {
		t.Fatal(err)
	}
	var dec struct {
		C ID `cbor:"c"`
	}
	if err := codec.Unmarshal(enc, &dec); err != nil || dec.C != id {
		t.Fatalf("cbor round trip: %v %v", dec.C, err)
	}
}

func TestParseRejects(t *testing.T) {
	good := sampleID(t).String()
	seed := good[len("mult8.v1."):]
	cases := map[string]string{
		"empty":         "",
		"two parts":     "mult8.v1",
		"upper hex":     "mult8.v1." + strings.ToUpper(seed),
		"short seed":    "mult8.v1." + seed[:62],
		"leading zero":  "mult8.v01." + seed,
		"version zero":  "mult8.v0." + seed,
		"no v":          "mult8.1." + seed,
		"bad env":       "Mult8.v1." + seed,
		"env digit":     "8mult.v1." + seed,
		"huge version":  "mult8.v70000." + seed,
		"non hex":       "mult8.v1." + strings.Repeat("g", 64),
		"extra dot":     "mult8.v1." + seed + ".x",
		"long env name": strings.Repeat("a", 33) + ".v1." + seed,
	}
	for name, s := range cases {
		if _, err := Parse(s); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Parse(%q) err = %v, want ErrMalformed", name, s, err)
		}
	}
}

func TestUnmarshalBinaryRejects(t *testing.T) {
	b, _ := sampleID(t).MarshalBinary()
	for _, bad := range [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 0), {0, 0, 1}} {
		var id ID
		if err := id.UnmarshalBinary(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("UnmarshalBinary(% x) err = %v", bad, err)
		}
	}
}

func TestDeriveDependsOnEveryInput(t *testing.T) {
	base := DeriveSeed([32]byte{1}, [32]byte{2}, "sat", 1, 7)
	variants := [][32]byte{
		DeriveSeed([32]byte{9}, [32]byte{2}, "sat", 1, 7),
		DeriveSeed([32]byte{1}, [32]byte{9}, "sat", 1, 7),
		DeriveSeed([32]byte{1}, [32]byte{2}, "abd", 1, 7),
		DeriveSeed([32]byte{1}, [32]byte{2}, "sat", 2, 7),
		DeriveSeed([32]byte{1}, [32]byte{2}, "sat", 1, 8),
	}
	for i, v := range variants {
		if v == base {
			t.Errorf("variant %d equals the base seed", i)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sampleID(&testing.T{}).String())
	f.Add("a.v1.")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			return
		}
		if id.String() != s {
			t.Fatalf("accepted %q but prints as %q", s, id.String())
		}
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	b, _ := sampleID(&testing.T{}).MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		if err := id.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := id.MarshalBinary()
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted % x but re-encodes as % x (%v)", b, again, err)
		}
	})
}
