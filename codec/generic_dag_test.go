package codec_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
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

// TestGenericUnmarshalSaysWhy: each value a ledger record may not hold is
// refused with the rule it breaks, and what a record may hold (a link,
// false, true and null) is accepted by the same general path.
func TestGenericUnmarshalSaysWhy(t *testing.T) {
	for _, tc := range []struct{ name, hex, want string }{
		{"float16 NaN", "f97e00", "floating-point value"},
		{"float16 one", "f93c00", "floating-point value"},
		{"float in a map", "a16161f97e00", "floating-point value"},
		{"tag 43", "d82b01", "tag 43; only tag 42 (a link) is allowed"},
		{"bignum tag 2", "c249010000000000000000", "tag 2; only tag 42 (a link) is allowed"},
		{"tag 42 over an integer", "d82a01", "tag 42 around something other than a byte string"},
		{"tag 42 without the 0x00 prefix", "d82a4101", "link: content must be 0x00 followed by a binary CID"},
		{"tag 42 over a cut CID", "d82a420001", "link: invalid cid"},
		{"simple value 16", "f0", "simple value 16"},
		{"undefined", "f7", "simple value 23"},
		{"integer map key", "a10101", "map key that is not a text string"},
		{"byte string map key", "a1410101", "map key that is not a text string"},
	} {
		data, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := codec.Unmarshal(data, &v); !errors.Is(err, codec.ErrNotCanonical) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%s): err = %v, want ErrNotCanonical saying %q", tc.name, tc.hex, err, tc.want)
		}
	}

	link := codec.LinkTo(codec.Sum([]byte("x")))
	data, err := codec.Marshal(map[string]any{"link": link, "no": false, "yes": true, "none": nil})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := codec.Unmarshal(data, &v); err != nil {
		t.Fatalf("a map of a link, false, true and null: %v", err)
	}
	// A generic value holds the link as its tag; it writes the same bytes.
	if v["no"] != false || v["yes"] != true || v["none"] != nil {
		t.Fatalf("decoded %#v", v)
	}
	if again, err := codec.Marshal(v); err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-encoded as %x (%v), want %x", again, err, data)
	}
}
