package record

import (
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/affine-ledger/ledger/codec"
)

// CheckDecision accepts any canonical DAG-CBOR value of at most
// MaxDecisionBytes that keeps to the ledger's subset (spec/encoding.md):
// text map keys, no floats, no tag but 42 (links). Decision records are
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
	return checkDAG(v)
}

// checkDAG walks a generically decoded value. The decoder already bounds
// nesting depth, so the recursion is bounded too.
func checkDAG(v any) error {
	switch x := v.(type) {
	case nil, bool, uint64, int64, string, []byte:
		return nil
	case []any:
		for _, e := range x {
			if err := checkDAG(e); err != nil {
				return err
			}
		}
		return nil
	case map[any]any:
		for k, e := range x {
			if _, ok := k.(string); !ok {
				return malformed("decision", "map key of type %T; DAG-CBOR keys are text", k)
			}
			if err := checkDAG(e); err != nil {
				return err
			}
		}
		return nil
	case cbor.Tag:
		if x.Number != 42 {
			return malformed("decision", "CBOR tag %d; only 42 (link) is allowed", x.Number)
		}
		if _, err := codec.TagLink(x); err != nil {
			return malformed("decision", "%v", err)
		}
		return nil
	default:
		return malformed("decision", "value of type %T is not allowed (no floats, no tags but 42)", v)
	}
}
