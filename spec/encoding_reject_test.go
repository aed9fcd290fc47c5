package spec

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// ruleReject is one input of encoding.json's reject_by_rule: bytes that
// are well-formed or nearly so, and break exactly one rule of
// spec/encoding.md, named by Rule (the names its Vectors section lists).
type ruleReject struct {
	Name string `json:"name"`
	Hex  string `json:"hex"`
	Rule string `json:"rule"`
	// want is a fragment of the Go codec's error for the input decoded
	// into any: the check that refused it, not some other.
	want string
}

// Names of the rules a reject_by_rule case breaks (spec/encoding.md).
const (
	ruleShortest = "1 shortest form"
	ruleDefinite = "2 definite lengths"
	ruleKeys     = "3 map keys"
	ruleUTF8     = "4 utf-8"
	ruleTags     = "5 tag 42 only"
	ruleFloats   = "6 no floats"
	ruleSimple   = "simple values"
	ruleLimits   = "limits"
	ruleOneItem  = "one item"
)

// Fragments of the Go codec's errors.
const (
	errCanonical  = "not canonical"
	errIndefinite = "indefinite"
)

// nestedArrays returns depth arrays, each the only element of the one
// around it, the innermost empty.
func nestedArrays(depth int) []byte {
	return append(bytes.Repeat([]byte{0x81}, depth-1), 0x80)
}

// mapOfPairs returns a canonical map of n distinct ASCII text keys, each to
// 0: the 128 one-byte keys first, then two-byte keys, in length-first
// order.
func mapOfPairs(n int) []byte {
	var b []byte
	switch {
	case n < 24:
		b = []byte{0xa0 | byte(n)}
	case n <= 0xff:
		b = []byte{0xb8, byte(n)}
	default:
		b = []byte{0xb9, byte(n >> 8), byte(n)}
	}
	for i := range n {
		if i < 128 {
			b = append(b, 0x61, byte(i), 0x00)
			continue
		}
		k := i - 128
		b = append(b, 0x62, byte(k/128), byte(k%128), 0x00)
	}
	return b
}

// buildRuleRejects returns the reject_by_rule cases. link is the binary
// CID of a record (no 0x00 prefix), so that a link case differs from a
// valid link only by the broken rule.
func buildRuleRejects(link []byte) []ruleReject {
	h := hex.EncodeToString
	// tag42 is a valid link: d8 2a, byte string head, 0x00, CID.
	content := append([]byte{0x00}, link...)
	bstr := append([]byte{0x58, byte(len(content))}, content...)
	tag42 := h(append([]byte{0xd8, 0x2a}, bstr...))
	return []ruleReject{
		{"integer 1 in two bytes", "1801", ruleShortest, errCanonical},
		{"integer 1 in nine bytes", "1b0000000000000001", ruleShortest, errCanonical},
		{"integer -1 in two bytes", "3800", ruleShortest, errCanonical},
		{"integer 255 in three bytes", "1900ff", ruleShortest, errCanonical},
		{"text length in two bytes", "780161", ruleShortest, errCanonical},
		{"byte string length in two bytes", "580100", ruleShortest, errCanonical},
		{"array length in two bytes", "980101", ruleShortest, errCanonical},
		{"map length in two bytes", "b801616101", ruleShortest, errCanonical},
		{"map key length in two bytes", "a178016101", ruleShortest, errCanonical},
		{"tag 42 in three bytes (d9 00 2a)", "d9002a" + tag42[4:], ruleShortest, errCanonical},
		{"link byte string length in three bytes", "d82a59" + h([]byte{0, byte(len(content))}) + h(content), ruleShortest, errCanonical},

		{"indefinite-length text string", "7f616161ff", ruleDefinite, errIndefinite},
		{"indefinite-length byte string", "5f4100ff", ruleDefinite, errIndefinite},
		{"indefinite-length array", "9f01ff", ruleDefinite, errIndefinite},
		{"indefinite-length map", "bf616101ff", ruleDefinite, errIndefinite},
		{"indefinite-length array in a map", "a161619f01ff", ruleDefinite, errIndefinite},
		{"empty indefinite-length text string", "7fff", ruleDefinite, errIndefinite},

		{"integer key", "a10101", ruleKeys, "map key"},
		{"byte string key", "a1416101", ruleKeys, "map key"},
		{"array key", "a1806101", ruleKeys, "map key"},
		{"keys of equal length not bytewise", "a2616201616102", ruleKeys, errCanonical},
		{"longer key first", "a262616101616202", ruleKeys, errCanonical},
		{"duplicate key", "a2616101616102", ruleKeys, "duplicate"},
		{"duplicate key in a nested map", "a16161a2616201616202", ruleKeys, "duplicate"},

		{"lone continuation byte", "6180", ruleUTF8, "UTF-8"},
		{"overlong encoding of /", "62c0af", ruleUTF8, "UTF-8"},
		{"UTF-16 surrogate", "63eda080", ruleUTF8, "UTF-8"},
		{"code point above U+10FFFF", "64f4908080", ruleUTF8, "UTF-8"},
		{"truncated sequence", "62e282", ruleUTF8, "UTF-8"},
		{"invalid map key", "a1618001", ruleUTF8, "UTF-8"},

		{"tag 0 (date text)", "c074323032342d30312d30315430303a30303a30305a", ruleTags, "only tag 42"},
		{"tag 1 (epoch time)", "c100", ruleTags, "only tag 42"},
		{"tag 2 (bignum)", "c24101", ruleTags, "only tag 42"},
		{"tag 43", "d82b" + h(bstr), ruleTags, "only tag 42"},
		{"tag 55799 (self-described CBOR)", "d9d9f7a0", ruleTags, "only tag 42"},
		{"tag 42 around an integer", "d82a01", ruleTags, "other than a byte string"},
		{"tag 42 around text", "d82a6161", ruleTags, "other than a byte string"},
		{"tag 42 around null", "d82af6", ruleTags, "other than a byte string"},
		{"tag 42 around tag 42", "d82a" + tag42, ruleTags, "other than a byte string"},
		{"tag 42 around a CID without the 0x00 prefix", "d82a58" + h([]byte{byte(len(link))}) + h(link), ruleTags, "0x00 followed by"},
		{"tag 42 around 0x01 and a CID", "d82a58" + h([]byte{byte(len(content))}) + "01" + h(link), ruleTags, "0x00 followed by"},
		{"tag 42 around 0x00 alone", "d82a4100", ruleTags, "0x00 followed by"},
		{"tag 42 around an empty byte string", "d82a40", ruleTags, "0x00 followed by"},
		{"tag 42 around a cut CID", "d82a58" + h([]byte{byte(len(content) - 1)}) + h(content[:len(content)-1]), ruleTags, "link"},
		{"tag 42 around a CID and a trailing byte", "d82a58" + h([]byte{byte(len(content) + 1)}) + h(content) + "00", ruleTags, "link"},

		{"half-precision 1.0", "f93c00", ruleFloats, "floating-point"},
		{"single-precision 1.0", "fa3f800000", ruleFloats, "floating-point"},
		{"double-precision 1.0", "fb3ff0000000000000", ruleFloats, "floating-point"},
		{"half-precision NaN", "f97e00", ruleFloats, "floating-point"},
		{"half-precision infinity", "f97c00", ruleFloats, "floating-point"},
		{"double 0.0 as a map value", "a16161fb0000000000000000", ruleFloats, "floating-point"},

		{"undefined", "f7", ruleSimple, "simple value 23"},
		{"simple value 0", "e0", ruleSimple, "simple value"},
		{"simple value 19", "f3", ruleSimple, "simple value"},
		{"simple value 32", "f820", ruleSimple, "simple value"},
		{"simple value 255", "f8ff", ruleSimple, "simple value"},
		{"false in two bytes", "f814", ruleSimple, "simple value"},
		{"undefined in an array", "8201f7", ruleSimple, "simple value 23"},

		{"33 nested arrays", h(nestedArrays(33)), ruleLimits, "nest"},
		{"33 nested maps", strings.Repeat("a16161", 32) + "a0", ruleLimits, "nest"},
		{"map of 4097 pairs", h(mapOfPairs(4097)), ruleLimits, "4096"},

		{"trailing byte after an integer", "0000", ruleOneItem, "trailing"},
		{"trailing break code", "a0ff", ruleOneItem, "trailing"},
		{"map cut before a value", "a16161", ruleOneItem, "EOF"},
		{"text cut short", "6261", ruleOneItem, "EOF"},
		{"stray break code", "ff", ruleOneItem, "break"},
		{"reserved additional information 28", "1c", ruleOneItem, "additional information 28"},
		{"empty input", "", ruleOneItem, "EOF"},
	}
}

// ruleAccepts are inputs just inside what a reject_by_rule case is just
// outside of; the Go test checks they decode, so each limit case fails
// for its limit alone. They are not written to the vector file.
func ruleAccepts(link []byte) map[string][]byte {
	content := append([]byte{0x00}, link...)
	return map[string][]byte{
		"32 nested arrays":     nestedArrays(32),
		"32 nested maps":       append(bytes.Repeat([]byte{0xa1, 0x61, 0x61}, 31), 0xa0),
		"map of 4096 pairs":    mapOfPairs(4096),
		"a link":               append([]byte{0xd8, 0x2a, 0x58, byte(len(content))}, content...),
		"false, true, null":    {0x83, 0xf4, 0xf5, 0xf6},
		"text of 4 UTF-8 seqs": []byte("\x6aa\u00e9\u2713\U0001F600"),
	}
}

func checkRuleRejects(t *testing.T, cases []ruleReject, link []byte) {
	t.Helper()
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.Name] {
			t.Errorf("two reject_by_rule cases named %q", c.Name)
		}
		names[c.Name] = true
		raw, err := hex.DecodeString(c.Hex)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var v any
		err = codec.Unmarshal(raw, &v)
		if err == nil {
			t.Errorf("%s (%s): %s accepted as %#v", c.Name, c.Rule, c.Hex, v)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): refused for another reason than %q: %v", c.Name, c.Rule, c.want, err)
		}
	}
	for name, raw := range ruleAccepts(link) {
		var v any
		if err := codec.Unmarshal(raw, &v); err != nil {
			t.Errorf("%s (% x) refused: %v", name, raw[:min(len(raw), 16)], err)
		}
	}
}
