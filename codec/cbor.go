package codec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// MaxRecordBytes bounds every record this package decodes. Larger inputs are
// refused before any parsing so a hostile peer cannot make us allocate.
const MaxRecordBytes = 16 << 20

// ErrNotCanonical is returned for input that decodes but is not the canonical
// DAG-CBOR encoding of its value (unsorted keys, long integer forms, unknown
// fields, trailing bytes, ...).
var ErrNotCanonical = errors.New("not canonical DAG-CBOR")

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	var err error
	encMode, err = cbor.EncOptions{
		Sort:          cbor.SortLengthFirst,
		ShortestFloat: cbor.ShortestFloatNone,
		IndefLength:   cbor.IndefLengthForbidden,
		NilContainers: cbor.NilContainerAsEmpty,
		TagsMd:        cbor.TagsAllowed,
	}.EncMode()
	if err != nil {
		panic(fmt.Sprintf("codec: encoder options: %v", err))
	}
	decMode, err = cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsAllowed,
		MaxNestedLevels:   32,
		MaxArrayElements:  1 << 20,
		MaxMapPairs:       1 << 12,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
		UTF8:              cbor.UTF8RejectInvalid,
	}.DecMode()
	if err != nil {
		panic(fmt.Sprintf("codec: decoder options: %v", err))
	}
}

// Marshal returns the canonical DAG-CBOR encoding of v.
//
// Values of record types (those Unmarshal reads with its direct decoder)
// are written by a direct encoder walking the type's plan (encode.go); any
// other value is written by fxamacker's encoder. Both write the same bytes
// for the same value and refuse the same values.
func Marshal(v any) ([]byte, error) {
	if rv := reflect.ValueOf(v); rv.IsValid() {
		if p := planFor(rv.Type()); p != nil {
			b, err := marshalDirect(p, rv)
			if err != nil {
				return nil, fmt.Errorf("codec: encode %T: %w", v, err)
			}
			return b, nil
		}
	}
	return marshalGeneral(v)
}

// marshalGeneral is Marshal's general path: fxamacker's encoder, the
// reference the direct encoder is held to.
func marshalGeneral(v any) ([]byte, error) {
	b, err := encMode.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("codec: encode %T: %w", v, err)
	}
	var err2 error
	switch t := reflect.TypeOf(v); {
	case isGeneric(t):
		err2 = checkDAG(b)
	case t.Kind() == reflect.Map || t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		// The decoder's bounds, so that what Marshal writes Unmarshal
		// reads. (Record structs are held to the direct encoder instead,
		// which writes their custom fields as they are.)
		_, err2 = skipItem(b, 0, 0)
	}
	if err2 != nil {
		return nil, fmt.Errorf("codec: encode %T: not a ledger record: %w", v, err2)
	}
	return b, nil
}

// Unmarshal decodes data into v and checks that data is exactly the
// canonical encoding of what was decoded: Marshal of the result gives data
// back. Input that decodes but is not that encoding is an error wrapping
// ErrNotCanonical, which is what lets a CID stand for a record.
//
// Record types (structs of integers, strings, byte strings and arrays,
// slices, pointers, links and types with their own MarshalCBOR and
// UnmarshalCBOR) are read in one pass by a decoder that accepts only that
// encoding (decode.go); any other type is decoded by fxamacker, re-encoded
// and compared. The two accept the same inputs and give the same values.
// On error, v may be partly written by the second path, never by the first.
func Unmarshal(data []byte, v any) error { return unmarshal(data, v, false) }

// UnmarshalBorrowed is Unmarshal without copying strings: the text and
// byte strings it writes into v share memory with data, which must then
// not change while v is in use. It saves an audit the copy (and the
// garbage) of every message of every transcript it only checks. A type
// without a direct plan is decoded the general way, with copies.
func UnmarshalBorrowed(data []byte, v any) error { return unmarshal(data, v, true) }

func unmarshal(data []byte, v any, borrow bool) error {
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("codec: record of %d bytes exceeds the %d-byte limit", len(data), MaxRecordBytes)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		if p := planFor(rv.Type().Elem()); p != nil {
			if err := unmarshalDirect(data, p, rv.Elem(), borrow); err != nil {
				return fmt.Errorf("codec: decode %T: %w", v, err)
			}
			return nil
		}
	}
	return unmarshalReencode(data, v)
}

// unmarshalReencode is Unmarshal's general path: fxamacker decodes, and the
// result must encode back to data.
func unmarshalReencode(data []byte, v any) error {
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("codec: record of %d bytes exceeds the %d-byte limit", len(data), MaxRecordBytes)
	}
	rest, err := decMode.UnmarshalFirst(data, v)
	if err != nil {
		return fmt.Errorf("codec: decode %T: %w", v, err)
	}
	if len(rest) != 0 {
		return fmt.Errorf("codec: decode %T: %d trailing bytes: %w", v, len(rest), ErrNotCanonical)
	}
	// The subset check first: a tag, float or simple value outside it
	// would also fail the comparison below, which cannot say which rule.
	if rt := reflect.TypeOf(v); rt != nil && rt.Kind() == reflect.Pointer && isGeneric(rt.Elem()) {
		if err := checkDAG(data); err != nil {
			return fmt.Errorf("codec: decode %T: %w: %v", v, ErrNotCanonical, err)
		}
	}
	again, err := encMode.Marshal(v)
	if err != nil {
		return fmt.Errorf("codec: re-encode %T: %w", v, err)
	}
	if !bytes.Equal(again, data) {
		return fmt.Errorf("codec: decode %T: %w", v, ErrNotCanonical)
	}
	return nil
}
