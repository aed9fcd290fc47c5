package record

import (
	"errors"
	"fmt"
)

// Sentinel errors of the records: the decoders' and checks' errors wrap
// ErrMalformed, a signature that does not verify ErrBadSignature, and a
// Merkle proof that does not verify ErrBadProof. Test with errors.Is.
var (
	// ErrMalformed: bytes that are not a well-formed record of the expected
	// kind (not canonical DAG-CBOR, unknown fields, a limit exceeded, a
	// field out of range).
	ErrMalformed = errors.New("malformed record")
	// ErrBadSignature: the block signature does not verify under its
	// validator's hotkey.
	ErrBadSignature = errors.New("bad signature")
)

func malformed(what, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", what, fmt.Sprintf(format, args...), ErrMalformed)
}
