package codec

import (
	"errors"
	"testing"
)

type record struct {
	Name  string `cbor:"name"`
	Count int64  `cbor:"count"`
	Blob  []byte `cbor:"blob"`
	Prev  Link   `cbor:"prev"`
}

func TestCanonicalKeyOrderIsLengthFirst(t *testing.T) {
	b, err := Marshal(map[string]int{"bb": 1, "a": 2, "ab": 3})
	if err != nil {
		t.Fatal(err)
	}
	// a1 61 'a' 02 ... : "a" first (shorter), then "ab" before "bb" (bytewise).
	want := []byte{0xa3, 0x61, 'a', 0x02, 0x62, 'a', 'b', 0x03, 0x62, 'b', 'b', 0x01}
	if string(b) != string(want) {
		t.Fatalf("got % x want % x", b, want)
	}
}

func TestRoundTripWithLink(t *testing.T) {
	inner, innerCID, err := Encode(record{Name: "inner"})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCID(inner, innerCID); err != nil {
		t.Fatal(err)
	}
	r := record{Name: "x", Count: -5, Blob: []byte{1, 2}, Prev: LinkTo(innerCID)}
	b, c, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	var back record
	if err := Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Prev.Cid.Equals(innerCID) || back.Name != "x" || back.Count != -5 {
		t.Fatalf("round trip lost data: %+v", back)
	}
	if c.String()[:4] != "bafy" {
		t.Fatalf("CID %s is not a base32 CIDv1 dag-cbor address", c)
	}
}

func TestUnmarshalRejectsNonCanonical(t *testing.T) {
	good, err := Marshal(record{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := Unmarshal(good, &r); err != nil {
		t.Fatalf("canonical input rejected: %v", err)
	}
	cases := map[string][]byte{
		"trailing byte": append(append([]byte{}, good...), 0x00),
		// {"count": 1} with a one-byte integer where the immediate form fits.
		"long integer": {0xa1, 0x65, 'c', 'o', 'u', 'n', 't', 0x18, 0x01},
		// {"name": "x", "blob": h''} with keys out of length-first order.
		"unsorted keys":  {0xa2, 0x64, 'n', 'a', 'm', 'e', 0x61, 'x', 0x64, 'b', 'l', 'o', 'b', 0x40},
		"unknown field":  {0xa1, 0x63, 'z', 'z', 'z', 0x01},
		"indefinite map": {0xbf, 0xff},
	}
	for name, b := range cases {
		if err := Unmarshal(b, &r); err == nil {
			t.Errorf("%s: accepted % x", name, b)
		}
	}
	if err := Unmarshal(cases["long integer"], &r); !errors.Is(err, ErrNotCanonical) {
		t.Errorf("long integer: err %v, want ErrNotCanonical", err)
	}
}

func TestCheckCIDRejectsOtherBytes(t *testing.T) {
	b, c, _ := Encode(record{Name: "a"})
	b[len(b)-1] ^= 1
	if err := CheckCID(b, c); err == nil {
		t.Fatal("altered bytes matched the CID")
	}
}

func FuzzUnmarshal(f *testing.F) {
	b, _ := Marshal(record{Name: "seed", Count: 3, Blob: []byte{9}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r record
		if err := Unmarshal(data, &r); err != nil {
			return
		}
		again, err := Marshal(r)
		if err != nil || string(again) != string(data) {
			t.Fatalf("accepted non-canonical input % x", data)
		}
	})
}
