package layout

import (
	"bytes"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte{'h'}, []byte{'i'}},
		{[]byte{'b', 1, 0xff}, []byte{'b', 2}},
		{[]byte{'b', 0xff, 0xff}, []byte{'c'}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := PrefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

func TestKeysSortByHeightAndLeaf(t *testing.T) {
	var v [32]byte
	v[0] = 7
	if bytes.Compare(BlockKey(v, 255), BlockKey(v, 256)) >= 0 || bytes.Compare(LeafKey(v, 1<<32-1), LeafKey(v, 1<<32)) >= 0 {
		t.Fatal("big-endian heights and leaves must sort numerically")
	}
	if !bytes.HasPrefix(BlockKey(v, 9), Prefix(Block, v[:])) || len(BlockKey(v, 9)) != 1+32+8 {
		t.Fatal("block key is not 'b' V BE64")
	}
	// Challenge keys of two env names, one a prefix of the other, never
	// share a prefix: the binary form starts with the name's length.
	a := ChallengeKey([]byte{2, 'a', 'b'}, v)
	b := ChallengePrefix([]byte{3, 'a', 'b', 'c'})
	if bytes.HasPrefix(a, b) || bytes.HasPrefix(b, a[:4]) {
		t.Fatal("challenge prefixes overlap")
	}
}

func TestRefRoundTrip(t *testing.T) {
	r := Ref{Leaf: 1<<40 + 3, Height: 99, CID: []byte{1, 0x71, 0x12, 0x20, 9}}
	back, err := ParseRef(r.Append([]byte{}))
	if err != nil || back.Leaf != r.Leaf || back.Height != r.Height || !bytes.Equal(back.CID, r.CID) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if _, err := ParseRef(make([]byte, 17)); err == nil {
		t.Fatal("short ref accepted")
	}
}
