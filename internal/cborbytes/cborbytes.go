// Package cborbytes reads and writes a CBOR byte string in its one
// canonical form (RFC 8949 §4.2.1: definite length, in the shortest head).
// Keys, signatures and challenge IDs are encoded as byte strings in every
// record; doing that without a general encoder's reflection saves most of
// their cost. Anything not canonical is left to the general codec, which
// judges it as before.
package cborbytes

import (
	"encoding/binary"

	"github.com/fxamacker/cbor/v2"
)

const majorBytes = 0x40

// Append appends b to dst as a canonical CBOR byte string.
func Append(dst, b []byte) []byte {
	n := uint64(len(b))
	switch {
	case n < 24:
		dst = append(dst, majorBytes|byte(n))
	case n <= 0xff:
		dst = append(dst, majorBytes|24, byte(n))
	case n <= 0xffff:
		dst = binary.BigEndian.AppendUint16(append(dst, majorBytes|25), uint16(n))
	case n <= 0xffffffff:
		dst = binary.BigEndian.AppendUint32(append(dst, majorBytes|26), uint32(n))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, majorBytes|27), n)
	}
	return append(dst, b...)
}

// Marshal returns b as a canonical CBOR byte string.
func Marshal(b []byte) []byte { return Append(make([]byte, 0, 9+len(b)), b) }

// Canonical returns the content of data if data is exactly one canonical
// CBOR byte string, aliasing data; ok is false for anything else.
func Canonical(data []byte) (content []byte, ok bool) {
	if len(data) == 0 || data[0]&0xe0 != majorBytes {
		return nil, false
	}
	ai := data[0] & 0x1f
	var n uint64
	var head int
	switch {
	case ai < 24:
		n, head = uint64(ai), 1
	case ai == 24 && len(data) >= 2:
		n, head = uint64(data[1]), 2
		if n < 24 {
			return nil, false
		}
	case ai == 25 && len(data) >= 3:
		n, head = uint64(binary.BigEndian.Uint16(data[1:])), 3
		if n <= 0xff {
			return nil, false
		}
	case ai == 26 && len(data) >= 5:
		n, head = uint64(binary.BigEndian.Uint32(data[1:])), 5
		if n <= 0xffff {
			return nil, false
		}
	case ai == 27 && len(data) >= 9:
		n, head = binary.BigEndian.Uint64(data[1:]), 9
		if n <= 0xffffffff {
			return nil, false
		}
	default:
		return nil, false
	}
	if n != uint64(len(data)-head) {
		return nil, false
	}
	return data[head:], true
}

// Unmarshal reads a CBOR byte string: a canonical one directly, any other
// form as fxamacker does (canonical decoding then refuses it when it
// re-encodes the value).
func Unmarshal(data []byte) ([]byte, error) {
	if b, ok := Canonical(data); ok {
		return b, nil
	}
	var b []byte
	err := cbor.Unmarshal(data, &b)
	return b, err
}
