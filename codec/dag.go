package codec

import (
	"fmt"
	"reflect"
)

// isGeneric reports whether t is a generic container (any, or a map or
// slice of any), into which fxamacker decodes whatever CBOR it is given:
// only for those is checkDAG needed. Record types accept only what their
// fields can hold, and a type with its own UnmarshalCBOR its own forms.
func isGeneric(t reflect.Type) bool {
	if t == nil {
		return true // Marshal(nil)
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Map, reflect.Slice, reflect.Array:
		return t.Elem().Kind() == reflect.Interface
	}
	return false
}

// checkDAG checks that data, one item fxamacker decoded or encoded, holds
// only what spec/encoding.md lets a ledger record hold (dagLimits), within
// the decoder's bounds (so Marshal refuses what Unmarshal would).
// fxamacker alone accepts every CBOR value that re-encodes to itself: NaN,
// tags 2 and 43, a float in a map.
func checkDAG(data []byte) error {
	end, err := walkItem(data, 0, 0, &dagLimits)
	if err != nil {
		return err
	}
	if end != len(data) {
		return fmt.Errorf("%d trailing bytes", len(data)-end)
	}
	return nil
}
