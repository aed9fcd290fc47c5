package record

import (
	"fmt"

	"github.com/affine-ledger/ledger/codec"
)

// CheckDecision accepts any canonical DAG-CBOR value of at most
// MaxDecisionBytes that keeps to the ledger's subset (spec/encoding.md):
// text map keys, no floats, no tag but 42 around a link. The subset is
// codec's check of every generically decoded value. Decision records are
// otherwise opaque to this package; the network's rule for the types it
// defines is package decisions', which stores and the audit apply.
func CheckDecision(data []byte) error {
	_, _, err := DecisionType(data)
	return err
}

// DecisionType checks data as CheckDecision does and returns its "type"
// and "v" fields: "" and 0 where the record is not a map or lacks them
// (or holds them with another type). Readers dispatch on both: a record
// of a known type but a version the release does not know is not judged
// against the rules of the version it does know.
func DecisionType(data []byte) (typ string, version uint64, err error) {
	if len(data) > MaxDecisionBytes {
		return "", 0, malformed("decision", "%d bytes, max %d", len(data), MaxDecisionBytes)
	}
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		return "", 0, fmt.Errorf("decision: %w: %w", ErrMalformed, err)
	}
	m, ok := v.(map[any]any)
	if !ok {
		return "", 0, nil
	}
	// codec decodes every unsigned integer as a uint64.
	typ, _ = m["type"].(string)
	version, _ = m["v"].(uint64)
	return typ, version, nil
}
