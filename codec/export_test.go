package codec

import "reflect"

// UnmarshalReencode is Unmarshal's general path (decode, re-encode,
// compare), the reference the direct decoder is held to.
var UnmarshalReencode = unmarshalReencode

// HasPlan reports whether Unmarshal reads values of the type v points to
// with the direct decoder.
func HasPlan(v any) bool {
	t := reflect.TypeOf(v)
	return t.Kind() == reflect.Pointer && planFor(t.Elem()) != nil
}
