package record

import (
	"fmt"

	"github.com/affine-ledger/ledger/codec"
)

// CheckDecision accepts any canonical DAG-CBOR value of at most
// MaxDecisionBytes that keeps to the ledger's subset (spec/encoding.md):
// text map keys, no floats, no tag but 42 around a link. The subset is
// codec's check of every generically decoded value. Decision records are
// otherwise opaque to this package until their format is specified (with
// duels); a store can be given a stricter check with WithDecisionCheck.
func CheckDecision(data []byte) error {
	if len(data) > MaxDecisionBytes {
		return malformed("decision", "%d bytes, max %d", len(data), MaxDecisionBytes)
	}
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("decision: %w: %w", ErrMalformed, err)
	}
	return nil
}
