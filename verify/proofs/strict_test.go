package proofs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// TestModifiedProofBytesDoNotVerify: spec/proofs.md fixes the form of a
// proof file (hashes are 64 lower-case hex digits, member names as listed,
// unknown members are errors), so that a proof that verifies is one
// string of bytes. Each edit below changes bytes of the valid inclusion
// vector that carry meaning; the file must be refused or fail to verify.
// All three are accepted and verify: encoding/json matches member names
// case-insensitively, and encoding/hex reads upper-case digits.
func TestModifiedProofBytesDoNotVerify(t *testing.T) {
	t.Parallel()
	valid := validVectors(t)["proof-inclusion.json"]
	p0, err := proofs.ReadProof(bytes.NewReader(valid))
	if err != nil {
		t.Fatal(err)
	}
	h0 := p0.(*proofs.InclusionProof).Hashes[0].String()
	cases := []struct{ name, old, new string }{
		{"upper-case hash digits", `"` + h0 + `"`, `"` + strings.ToUpper(h0) + `"`},
		{"member name in other case", `"leaf_index"`, `"LEAF_INDEX"`},
		{"type member in other case", `"type"`, `"Type"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Contains(valid, []byte(tc.old)) {
				t.Fatalf("vector lacks %s", tc.old)
			}
			edited := bytes.Replace(valid, []byte(tc.old), []byte(tc.new), 1)
			p, err := proofs.ReadProof(bytes.NewReader(edited))
			if err != nil {
				return // refused: fine
			}
			if _, err := proofs.VerifyProof(p); err == nil {
				t.Errorf("proof with %s (%s for %s) reads and verifies", tc.name, tc.new, tc.old)
			}
		})
	}
}

// TestReadProofStrict: each rule of spec/proofs.md's proof file form
// refuses the file with ErrProofFormat, naming the member. The proof is
// synthetic (it would not verify): the reader alone is under test.
func TestReadProofStrict(t *testing.T) {
	t.Parallel()
	var h record.Hash
	h[0] = 0xab
	c := codec.Sum([]byte{0}).String()
	want := &proofs.InclusionProof{Type: proofs.InclusionType, Transcript: []byte{0}, CID: c, LeafIndex: 6,
		TreeSize: 15, Hashes: []record.Hash{h}, Block: []byte{1, 2, 3}}
	good, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proofs.ReadProof(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("%s: %v", good, err)
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("read %+v, want %+v", p, want)
	}
	hex := h.String()
	cases := []struct {
		name string
		edit func(m map[string]any) // nil: file is used as it is
		file string
		err  string
	}{
		{name: "member name in other case", edit: func(m map[string]any) { m["Leaf_index"] = m["leaf_index"]; delete(m, "leaf_index") },
			err: `unknown member "Leaf_index" (names are case-sensitive: "leaf_index")`},
		{name: "type name in other case", edit: func(m map[string]any) { m["TYPE"] = m["type"]; delete(m, "type") }, err: `no member "type"`},
		{name: "unknown member", edit: func(m map[string]any) { m["note"] = "x" }, err: `unknown member "note"`},
		{name: "missing member", edit: func(m map[string]any) { delete(m, "leaf_index") }, err: `no member "leaf_index"`},
		{name: "null number", edit: func(m map[string]any) { m["leaf_index"] = nil }, err: "leaf_index: want a non-negative integer"},
		{name: "null hashes", edit: func(m map[string]any) { m["hashes"] = nil }, err: "hashes: want an array"},
		{name: "null bytes", edit: func(m map[string]any) { m["block"] = nil }, err: "block: want a string"},
		{name: "null hash", edit: func(m map[string]any) { m["hashes"] = []any{nil} }, err: "hashes[0]: want a string"},
		{name: "number as string", edit: func(m map[string]any) { m["tree_size"] = "15" }, err: "tree_size: want a non-negative integer"},
		{name: "upper-case hash", edit: func(m map[string]any) { m["hashes"] = []any{strings.ToUpper(hex)} }, err: "hashes[0]: want 64 lower-case hex digits"},
		{name: "short hash", edit: func(m map[string]any) { m["hashes"] = []any{hex[:62]} }, err: "hashes[0]: want 64 lower-case hex digits, got 62"},
		{name: "base64 padding bits", edit: func(m map[string]any) { m["transcript"] = "AB==" }, err: "transcript: base64"},
		{name: "base64 without padding", edit: func(m map[string]any) { m["transcript"] = "AA" }, err: "transcript: base64"},
		{name: "base64 line break", edit: func(m map[string]any) { m["block"] = "AQ\nID" }, err: "block: line break"},
		{name: "duplicate member", file: `{"leaf_index":6,` + string(good[1:]), err: `member "leaf_index" appears twice`},
		{name: "fraction", file: strings.Replace(string(good), `"leaf_index":6`, `"leaf_index":6.0`, 1), err: "leaf_index: want a non-negative integer"},
		{name: "exponent", file: strings.Replace(string(good), `"leaf_index":6`, `"leaf_index":6e0`, 1), err: "leaf_index: want a non-negative integer"},
		{name: "negative zero", file: strings.Replace(string(good), `"leaf_index":6`, `"leaf_index":-0`, 1), err: "leaf_index: want a non-negative integer"},
		{name: "overflow", file: strings.Replace(string(good), `"leaf_index":6`, `"leaf_index":18446744073709551616`, 1), err: "leaf_index: strconv.ParseUint"},
		{name: "data after the object", file: string(good) + "{}", err: "data after the proof object"},
		{name: "not an object", file: `["affine-ledger/inclusion-proof/v1"]`, err: "not a JSON object"},
		{name: "unknown type", edit: func(m map[string]any) { m["type"] = "affine-ledger/inclusion-proof/v2" }, err: `type "affine-ledger/inclusion-proof/v2"`},
		{name: "cid not a CID", edit: func(m map[string]any) { m["cid"] = "bafy" }, err: `cid: "bafy" is not a CID`},
		{name: "cid with unused bits set", edit: func(m map[string]any) { m["cid"] = c[:len(c)-1] + string(c[len(c)-1]+1) },
			err: "cid: " + strconv.Quote(c[:len(c)-1]+string(c[len(c)-1]+1)) + " is not the canonical text of its CID, " + c},
		{name: "cid in upper case", edit: func(m map[string]any) { m["cid"] = strings.ToUpper(c) }, err: "is not the canonical text of its CID, " + c},
		{name: "consistency member in an inclusion proof", edit: func(m map[string]any) { m["older"] = "AA==" }, err: `unknown member "older"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := []byte(tc.file)
			if tc.edit != nil {
				var m map[string]any
				if err := json.Unmarshal(good, &m); err != nil {
					t.Fatal(err)
				}
				tc.edit(m)
				edited, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				file = edited
			}
			if bytes.Equal(file, good) {
				t.Fatal("the edit left the file as it was")
			}
			_, err := proofs.ReadProof(bytes.NewReader(file))
			if !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want ErrProofFormat naming %q", file, err, tc.err)
			}
		})
	}
}
