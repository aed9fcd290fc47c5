package codec

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
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

// TestCheckCIDAcceptsOnlySum: CheckCID accepts exactly Sum(data), whatever
// else a CID may name: the same digest under another version, codec or
// hash function, or cut short.
func TestCheckCIDAcceptsOnlySum(t *testing.T) {
	data := []byte("some bytes")
	good := Sum(data)
	digest := sha256.Sum256(data)
	sha256mh, _ := multihash.Encode(digest[:], multihash.SHA2_256)
	short, _ := multihash.Encode(digest[:20], multihash.SHA2_256)
	other, _ := multihash.Encode(digest[:], multihash.SHA2_512) // wrong length for its code: a lie, but a CID
	identity, _ := multihash.Encode(data, multihash.IDENTITY)
	// Each refusal says why: a CID of another form is not one this ledger
	// writes, one of its form names other bytes.
	const notOurs, otherBytes = "is not a CIDv1 dag-cbor address", "bytes hash to"
	cases := map[string]struct {
		c    cid.Cid
		want string
	}{
		"raw codec":     {cid.NewCidV1(cid.Raw, sha256mh), notOurs},
		"CIDv0":         {cid.NewCidV0(sha256mh), notOurs},
		"short digest":  {cid.NewCidV1(cid.DagCBOR, short), otherBytes},
		"other hash":    {cid.NewCidV1(cid.DagCBOR, other), otherBytes},
		"identity hash": {cid.NewCidV1(cid.DagCBOR, identity), otherBytes},
		"other bytes":   {Sum([]byte("other bytes")), otherBytes},
		"undefined":     {cid.Undef, "undefined CID"},
	}
	if err := CheckCID(data, good); err != nil {
		t.Fatalf("Sum's own CID: %v", err)
	}
	for name, c := range cases {
		if err := CheckCID(data, c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %s: err = %v, want one saying %q", name, c.c, err, c.want)
		}
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

func TestLinkMarshalMatchesTag(t *testing.T) {
	var cids []cid.Cid
	for _, data := range [][]byte{nil, {1}, make([]byte, 300)} {
		cids = append(cids, Sum(data))
		// Identity multihashes give CIDs of any length: byte string
		// heads of one, two and three bytes.
		mh, err := multihash.Sum(data, multihash.IDENTITY, -1)
		if err != nil {
			t.Fatal(err)
		}
		cids = append(cids, cid.NewCidV1(cid.Raw, mh))
	}
	for _, c := range cids {
		got, err := LinkTo(c).MarshalCBOR()
		if err != nil {
			t.Fatal(err)
		}
		want, err := encMode.Marshal(cbor.Tag{Number: linkTag, Content: append([]byte{0x00}, c.Bytes()...)})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("link %s: % x, the encoder writes % x", c, got, want)
		}
	}
	if got, _ := (Link{}).MarshalCBOR(); !bytes.Equal(got, []byte{0xf6}) {
		t.Fatalf("no link: % x", got)
	}
}

// TestUnmarshalBorrowedAliases checks what UnmarshalBorrowed promises and
// Unmarshal must not do: the strings it decodes share the input's memory.
func TestUnmarshalBorrowedAliases(t *testing.T) {
	type rec struct {
		S string `cbor:"s"`
		B []byte `cbor:"b"`
	}
	data, err := Marshal(rec{S: "hello", B: []byte("world")})
	if err != nil {
		t.Fatal(err)
	}
	var copied, borrowed rec
	if err := Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	if err := UnmarshalBorrowed(data, &borrowed); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	if copied.S != "hello" || string(copied.B) != "world" {
		t.Fatalf("Unmarshal's strings changed with the input: %q %q", copied.S, copied.B)
	}
	if borrowed.S != "xxxxx" || string(borrowed.B) != "xxxxx" {
		t.Fatalf("UnmarshalBorrowed copied: %q %q", borrowed.S, borrowed.B)
	}
	if cap(borrowed.B) != len(borrowed.B) {
		t.Fatalf("a borrowed byte string can grow over the input: cap %d len %d", cap(borrowed.B), len(borrowed.B))
	}
}

// TestCheckAddress: the ledger's link rule takes Sum's CIDs only, and
// names what differs in any other.
func TestCheckAddress(t *testing.T) {
	data := []byte("some bytes")
	digest := sha256.Sum256(data)
	sha256mh, _ := multihash.Encode(digest[:], multihash.SHA2_256)
	short, _ := multihash.Encode(digest[:20], multihash.SHA2_256)
	blake, _ := multihash.Encode(digest[:], multihash.BLAKE2B_MIN+31)
	if err := CheckAddress(Sum(data)); err != nil {
		t.Fatalf("Sum's own CID: %v", err)
	}
	for name, c := range map[string]struct {
		c    cid.Cid
		want string
	}{
		"undefined":    {cid.Undef, "null link"},
		"raw codec":    {cid.NewCidV1(cid.Raw, sha256mh), "is not a CIDv1 dag-cbor address"},
		"CIDv0":        {cid.NewCidV0(sha256mh), "is not a CIDv1 dag-cbor address"},
		"blake2b-256":  {cid.NewCidV1(cid.DagCBOR, blake), "is not a sha2-256 address"},
		"short digest": {cid.NewCidV1(cid.DagCBOR, short), "is not a sha2-256 address"},
	} {
		if err := CheckAddress(c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %q", name, err, c.want)
		}
	}
}
