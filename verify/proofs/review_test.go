package proofs_test

import (
	"bytes"
	"strings"
	"testing"

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
