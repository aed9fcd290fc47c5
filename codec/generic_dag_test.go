package codec_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// TestGenericUnmarshalRefusesNonLedgerCBOR: spec/encoding.md rules 5
// and 6 (only tag 42, no floats) and its reject vectors are what "a
// decoder must reject". Unmarshal's general path (any type without a
// plan: any, map[string]any, a decision) only re-encodes and compares, so
// every value fxamacker round-trips is accepted: the spec's own "float
// value" reject vector, a half-precision NaN or infinity (which DAG-CBOR
// forbids outright, and which Marshal writes for math.NaN()), a tag other
// than 42, tag 42 over an integer, and an unassigned simple value.
func TestGenericUnmarshalRefusesNonLedgerCBOR(t *testing.T) {
	raw, err := os.ReadFile("../spec/vectors/encoding.json")
	if err != nil {
		t.Fatal(err)
	}
	var vec struct {
		Reject []struct{ Name, Hex string } `json:"reject"`
	}
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"float16 NaN":       "f97e00",
		"float16 +Inf":      "f97c00",
		"tag 43":            "d82b01",
		"tag 42 over int":   "d82a01",
		"simple value 16":   "f0",
		"map with NaN":      "a16161f97e00",
		"bignum tag 2 2^64": "c249010000000000000000",
	}
	for _, r := range vec.Reject {
		cases["spec reject vector: "+r.Name] = r.Hex
	}
	for name, h := range cases {
		data, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := codec.Unmarshal(data, &v); err == nil {
			t.Errorf("%s: Unmarshal into any accepted %s as %#v", name, h, v)
		}
		var m map[string]any
		if err := codec.Unmarshal(data, &m); err == nil && data[0]&0xe0 == 0xa0 {
			t.Errorf("%s: Unmarshal into map[string]any accepted %s as %#v", name, h, m)
		}
	}
}
