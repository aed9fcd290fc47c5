package codec_test

import (
	"fmt"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// TestReviewMarshalOutputOfLargeMapDecodes: spec/encoding.md bounds a
// record by its size (16 MiB) and nesting (32 levels) only. A map of 4,097
// small entries (about 40 KB, a valid decision by spec/ledger.md's 1 MiB
// bound) is what Marshal writes and is canonical DAG-CBOR, yet Unmarshal
// refuses its own output: decMode's MaxMapPairs (1<<12) is an undocumented
// third bound.
func TestReviewMarshalOutputOfLargeMapDecodes(t *testing.T) {
	m := map[string]uint64{}
	for i := range 4097 {
		m[fmt.Sprintf("k%05d", i)] = uint64(i)
	}
	data, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]uint64
	if err := codec.Unmarshal(data, &back); err != nil {
		t.Fatalf("Marshal's %d-byte canonical encoding of a %d-entry map is refused: %v", len(data), len(m), err)
	}
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		t.Fatalf("into any: %v", err)
	}
}
