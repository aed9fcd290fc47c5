package codec

import (
	"errors"
	"fmt"
	"io"
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
// only what spec/encoding.md lets a ledger record hold: text map keys, no
// tag but 42 around a link, no floats and no simple values but false,
// true and null; and no more nesting, array elements or map pairs than
// decMode reads (so Marshal refuses what Unmarshal would). fxamacker alone
// accepts every CBOR value that re-encodes to itself: NaN, tags 2 and 43,
// a float in a map.
func checkDAG(data []byte) error {
	end, err := dagItem(data, 0, 0)
	if err != nil {
		return err
	}
	if end != len(data) {
		return fmt.Errorf("%d trailing bytes", len(data)-end)
	}
	return nil
}

// dagItem returns the end of the item at off, nested depth levels deep.
func dagItem(data []byte, off, depth int) (int, error) {
	start := off
	major, ai, n, off, err := anyHead(data, off)
	if err != nil {
		return 0, err
	}
	if ai == 31 {
		return 0, errIndefinite
	}
	switch major {
	case majorUint, majorNeg:
		return off, nil
	case majorBytes, majorText:
		if n > uint64(len(data)-off) {
			return 0, io.ErrUnexpectedEOF
		}
		return off + int(n), nil
	case majorArray, majorMap:
		if depth++; depth > decodeLimits.depth {
			return 0, fmt.Errorf("nesting exceeds %d levels", decodeLimits.depth)
		}
		if major == majorArray && n > decodeLimits.array {
			return 0, fmt.Errorf("array of %d elements exceeds the limit of %d", n, decodeLimits.array)
		}
		if major == majorMap && n > decodeLimits.mapPairs {
			return 0, fmt.Errorf("map of %d pairs exceeds the limit of %d", n, decodeLimits.mapPairs)
		}
		for range n {
			if major == majorMap {
				if off >= len(data) {
					return 0, io.ErrUnexpectedEOF
				}
				if data[off]&0xe0 != majorText {
					return 0, errors.New("map key that is not a text string")
				}
				if off, err = dagItem(data, off, depth); err != nil {
					return 0, err
				}
			}
			if off, err = dagItem(data, off, depth); err != nil {
				return 0, err
			}
		}
		return off, nil
	case majorTag:
		if n != linkTag {
			return 0, fmt.Errorf("tag %d; only tag 42 (a link) is allowed", n)
		}
		_, bai, size, body, err := anyHead(data, off)
		if err != nil {
			return 0, err
		}
		if data[off]&0xe0 != majorBytes || bai == 31 || size > uint64(len(data)-body) {
			return 0, errors.New("tag 42 around something other than a byte string")
		}
		if _, err := linkCID(data[body : body+int(size)]); err != nil {
			return 0, err
		}
		return body + int(size), nil
	default: // majorOther
		switch data[start] {
		case 0xf4, 0xf5, 0xf6: // false, true, null
			return off, nil
		}
		if ai >= 25 && ai <= 27 {
			return 0, errors.New("floating-point value")
		}
		return 0, fmt.Errorf("simple value %d", n)
	}
}
