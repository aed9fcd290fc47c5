package subtensor

import (
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain/scale"
)

// boundedMetadata is a v14 metadata of types empty tuples, pallets pallets
// without calls, extensions signed extensions and docsLen bytes of docs on
// type 0.
func boundedMetadata(types, pallets, extensions, docsLen int) []byte {
	var e scale.Encoder
	e.Fixed([]byte("meta\x0e"))
	e.Compact(uint64(types))
	for i := range types {
		e.Compact(uint64(i))
		e.Fixed([]byte{0, 0, defTuple, 0}) // path, params, (), docs below
		if i == 0 && docsLen > 0 {
			e.Compact(1)
			e.VecU8(make([]byte, docsLen))
		} else {
			e.Compact(0)
		}
	}
	e.Compact(uint64(pallets))
	for i := range pallets {
		e.VecU8([]byte("P" + strconv.Itoa(i)))
		e.Fixed([]byte{0, 0, 0, 0, 0, byte(i)})
	}
	e.Compact(0)
	e.U8(4)
	e.Compact(uint64(extensions))
	for range extensions {
		e.VecU8([]byte("E"))
		e.Fixed([]byte{0, 0})
	}
	e.Compact(0)
	return e.Bytes()
}

// TestMetadataBounds: metadata at each bound decodes; one past is refused.
func TestMetadataBounds(t *testing.T) {
	t.Parallel()
	// docs that make the metadata exactly maxMetadata bytes
	docs := maxMetadata - (len(boundedMetadata(1, 0, 0, 1<<20)) - 1<<20)
	cases := []struct {
		name                    string
		at, past                []byte
		want                    string
		types, pallets, exts, n int
	}{
		{"bytes", boundedMetadata(1, 0, 0, docs), boundedMetadata(1, 0, 0, docs+1), "16777217 bytes, at most 16777216 allowed", 1, 0, 0, maxMetadata},
		{"types", boundedMetadata(maxTypes, 0, 0, 0), boundedMetadata(maxTypes+1, 0, 0, 0), "types has 1048577 elements, at most 1048576", maxTypes, 0, 0, 0},
		{"pallets", boundedMetadata(1, maxPallets, 0, 0), boundedMetadata(1, maxPallets+1, 0, 0), "pallets has 257 elements, at most 256", 1, maxPallets, 0, 0},
		{"signed extensions", boundedMetadata(1, 0, maxExtensions, 0), boundedMetadata(1, 0, maxExtensions+1, 0), "signed extensions has 257 elements, at most 256", 1, 0, maxExtensions, 0},
	}
	for _, c := range cases {
		m, err := decodeMetadataV14(c.at)
		if err != nil {
			t.Errorf("%s at the bound: %v", c.name, err)
			continue
		}
		if len(m.types.entries) != c.types || len(m.pallets) != c.pallets || len(m.extrinsic.extensions) != c.exts || (c.n > 0 && len(c.at) != c.n) {
			t.Errorf("%s at the bound: %d bytes, %d types, %d pallets, %d extensions", c.name, len(c.at), len(m.types.entries), len(m.pallets), len(m.extrinsic.extensions))
		}
		if _, err := decodeMetadataV14(c.past); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s past the bound: %v, want %q", c.name, err, c.want)
		}
		// ParseMetadata refuses it too, the bytes already for their hex.
		if _, err := ParseMetadata(hexMetadata(c.past)); err == nil || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("%s past the bound: ParseMetadata: %v", c.name, err)
		}
	}
}
