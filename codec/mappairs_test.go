package codec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// TestMarshalRefusesWhatUnmarshalRefuses: the decoder reads maps of at
// most 4096 pairs (spec/encoding.md); Marshal wrote a map of 4097, whose
// bytes no decoder of the ledger would read back. It refuses it now, and
// the largest map still goes both ways.
func TestMarshalRefusesWhatUnmarshalRefuses(t *testing.T) {
	m := map[string]uint64{}
	for i := range 4096 {
		m[fmt.Sprintf("k%05d", i)] = uint64(i)
	}
	data, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]uint64
	if err := codec.Unmarshal(data, &back); err != nil || len(back) != 4096 {
		t.Fatalf("a map of 4096 pairs: %d back, %v", len(back), err)
	}
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		t.Fatalf("into any: %v", err)
	}
	m["k04096"] = 1
	if _, err := codec.Marshal(m); err == nil || !strings.Contains(err.Error(), "4097 pairs") {
		t.Fatalf("Marshal of a map of 4097 pairs: %v, want refused", err)
	}
	if _, err := codec.Marshal(map[string]any{"m": m}); err == nil {
		t.Fatal("Marshal of a generic map holding 4097 pairs accepted")
	}
}
