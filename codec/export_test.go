package codec

import (
	"errors"
	"fmt"
	"reflect"
)

// UnmarshalReencode is Unmarshal's general path (decode, re-encode,
// compare), the reference the direct decoder is held to.
var UnmarshalReencode = unmarshalReencode

// HasPlan reports whether Unmarshal reads values of the type v points to
// with the direct decoder.
func HasPlan(v any) bool {
	t := reflect.TypeOf(v)
	return t.Kind() == reflect.Pointer && planFor(t.Elem()) != nil
}

// MarshalGeneral is Marshal's general path (fxamacker's encoder), the
// reference the direct encoder is held to.
var MarshalGeneral = marshalGeneral

// MarshalDirect is Marshal's direct path, and an error for a type without
// a plan.
func MarshalDirect(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, errors.New("codec: MarshalDirect(nil)")
	}
	p := planFor(rv.Type())
	if p == nil {
		return nil, fmt.Errorf("codec: %T has no plan", v)
	}
	return marshalDirect(p, rv)
}

// CheckMarshaled is the check the direct encoder makes of a MarshalCBOR
// result.
var CheckMarshaled = checkMarshaled

// BitsType reports whether the encoder's memo may key values of t by
// their bytes.
var BitsType = bitsType

// The decoder's bounds on counts and nesting (spec/encoding.md).
const (
	MaxArray    = maxArray
	MaxMapPairs = maxMapPairs
	MaxDepth    = maxDepth
)
