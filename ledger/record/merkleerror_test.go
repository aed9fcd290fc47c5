package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/transparency-dev/merkle/proof"

	"github.com/affine-ledger/ledger/ledger/record"
)

// TestMerkleError: the library's root mismatch, bare or wrapped, is said
// with both roots in hex on one line; any other error passes unchanged.
func TestMerkleError(t *testing.T) {
	t.Parallel()
	calc, want := bytes.Repeat([]byte{0xb5}, 32), bytes.Repeat([]byte{0x62}, 32)
	mismatch := proof.RootMismatchError{CalculatedRoot: calc, ExpectedRoot: want}
	text := fmt.Sprintf("calculated root %x does not match the expected root %x", calc, want)
	for _, tc := range []struct {
		name string
		in   error
		want string
	}{
		{"bare", mismatch, text},
		{"wrapped", fmt.Errorf("x: %w", mismatch), text},
		{"other", io.ErrUnexpectedEOF, io.ErrUnexpectedEOF.Error()},
	} {
		got := record.MerkleError(tc.in)
		if got.Error() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if !errors.Is(record.MerkleError(io.ErrUnexpectedEOF), io.ErrUnexpectedEOF) {
		t.Error("another error is not returned as it is")
	}
}
