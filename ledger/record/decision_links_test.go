package record_test

import (
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/ledger/record"
)

// TestCheckDecisionRefusesMalformedLinks: spec/encoding.md allows tag
// 42 only as a link, "tag 42 around a byte string of 0x00 followed by the
// binary CID", and spec/ledger.md (validity rule 7) wants every decision to
// be canonical DAG-CBOR, which @ipld/dag-cbor refuses for each of these.
// CheckDecision accepted tag 42 around anything, so Store.Put stored a
// peer's block whose decision is not DAG-CBOR; codec's generic check now
// refuses each.
func TestCheckDecisionRefusesMalformedLinks(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"tag 42 around text", []byte{0xd8, 0x2a, 0x61, 'x'}},
		{"tag 42 around an integer", []byte{0xd8, 0x2a, 0x01}},
		{"tag 42 around a map", []byte{0xd8, 0x2a, 0xa0}},
		{"tag 42 around tag 42", []byte{0xd8, 0x2a, 0xd8, 0x2a, 0x41, 0x00}},
		{"tag 42 bytes without the 0x00 prefix", []byte{0xd8, 0x2a, 0x41, 0x01}},
		{"tag 42 bytes that are no CID", []byte{0xd8, 0x2a, 0x42, 0x00, 0x01}},
	} {
		if err := record.CheckDecision(c.b); !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s (% x): CheckDecision = %v, want ErrMalformed", c.name, c.b, err)
		}
	}
}
