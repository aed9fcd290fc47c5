package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// selfDescribedTag is CBOR's "this is CBOR" tag, which fxamacker drops
// before handing an item to UnmarshalCBOR.
const selfDescribedTag = 55799

var errIndefinite = errors.New("indefinite-length items are not allowed")

// itemLimits bound what an item walk accepts: nesting (arrays, maps and
// chained tags) and the elements of one array and pairs of one map.
type itemLimits struct {
	depth           int
	array, mapPairs uint64
	// dag adds spec/encoding.md's rules for what a record may hold: text
	// map keys, tag 42 only and around a link, no floats and no simple
	// values but false, true and null.
	dag bool
}

// decodeLimits are decMode's (plan.go); dagLimits add the ledger's subset.
var (
	decodeLimits = itemLimits{depth: maxDepth, array: maxArray, mapPairs: maxMapPairs}
	dagLimits    = itemLimits{depth: maxDepth, array: maxArray, mapPairs: maxMapPairs, dag: true}
)

// skipItem returns the end of the well-formed item at off, as fxamacker's
// well-formedness check under decMode's options judges it: any head form,
// definite lengths only, within decodeLimits (depth is the nesting the item
// sits at); and with the content of built-in tags 0 to 3 of the right
// type, as the encoder checks what a MarshalCBOR returns. It is for the
// items a custom UnmarshalCBOR gets; their canonical form is checked by
// re-encoding them.
func skipItem(data []byte, off, depth int) (int, error) {
	return walkItem(data, off, depth, &decodeLimits)
}

// walkItem returns the end of the well-formed item at off within lim.
func walkItem(data []byte, off, depth int, lim *itemLimits) (int, error) {
	major, ai, n, off, err := anyHead(data, off)
	if err != nil {
		return 0, err
	}
	switch major {
	case majorBytes, majorText:
		if ai == 31 {
			return 0, errIndefinite
		}
		if n > uint64(len(data)-off) {
			return 0, io.ErrUnexpectedEOF
		}
		return off + int(n), nil
	case majorArray, majorMap:
		if depth++; depth > lim.depth {
			return 0, fmt.Errorf("nesting exceeds %d levels", lim.depth)
		}
		if ai == 31 {
			return 0, errIndefinite
		}
		items := n
		if major == majorArray && n > lim.array {
			return 0, fmt.Errorf("array of %d elements exceeds the limit of %d", n, lim.array)
		}
		if major == majorMap {
			if n > lim.mapPairs {
				return 0, fmt.Errorf("map of %d pairs exceeds the limit of %d", n, lim.mapPairs)
			}
			items = 2 * n
		}
		for i := range items {
			if lim.dag && major == majorMap && i%2 == 0 && (off >= len(data) || data[off]&0xe0 != majorText) {
				return 0, errors.New("map key that is not a text string")
			}
			if off, err = walkItem(data, off, depth, lim); err != nil {
				return 0, err
			}
		}
		return off, nil
	case majorTag:
		if lim.dag {
			return dagLink(data, off, n)
		}
		// A chain of tags counts one level per tag after the first.
		for {
			if off == len(data) {
				return 0, io.ErrUnexpectedEOF
			}
			if err := checkBuiltinTag(n, data[off]); err != nil {
				return 0, err
			}
			if data[off]&0xe0 != majorTag {
				break
			}
			if _, _, n, off, err = anyHead(data, off); err != nil {
				return 0, err
			}
			if depth++; depth > lim.depth {
				return 0, fmt.Errorf("nesting exceeds %d levels", lim.depth)
			}
		}
		return walkItem(data, off, depth, lim)
	}
	if lim.dag && major == majorOther {
		switch {
		case ai >= 20 && ai <= 22: // false, true, null
		case ai >= 25 && ai <= 27:
			return 0, errors.New("floating-point value")
		default:
			return 0, fmt.Errorf("simple value %d", n)
		}
	}
	return off, nil // integers, simple values, floats
}

// dagLink returns the end of the content of tag n at off, which in a
// record must be tag 42 around a byte string holding a link.
func dagLink(data []byte, off int, n uint64) (int, error) {
	if n != linkTag {
		return 0, fmt.Errorf("tag %d; only tag 42 (a link) is allowed", n)
	}
	if off >= len(data) || data[off]&0xe0 != majorBytes {
		return 0, errors.New("tag 42 around something other than a byte string")
	}
	_, ai, size, body, err := anyHead(data, off)
	if err != nil {
		return 0, err
	}
	if ai == 31 || size > uint64(len(data)-body) {
		return 0, errors.New("tag 42 around a byte string cut short or of indefinite length")
	}
	if _, err := linkCID(data[body : body+int(size)]); err != nil {
		return 0, err
	}
	return body + int(size), nil
}

// anyHead reads a head in any of its forms. ai 31 is returned for the
// string and container types (the caller refuses it) and is an error for
// the others, as are ai 28 to 30 and the two-byte simple values below 32.
func anyHead(data []byte, off int) (major, ai byte, n uint64, next int, err error) {
	if off >= len(data) {
		return 0, 0, 0, 0, io.ErrUnexpectedEOF
	}
	major, ai = data[off]&0xe0, data[off]&0x1f
	off++
	switch {
	case ai < 24:
		return major, ai, uint64(ai), off, nil
	case ai <= 27:
		size := 1 << (ai - 24)
		if len(data)-off < size {
			return 0, 0, 0, 0, io.ErrUnexpectedEOF
		}
		arg := data[off : off+size]
		switch size {
		case 1:
			n = uint64(arg[0])
			if major == majorOther && n < 32 {
				return 0, 0, 0, 0, fmt.Errorf("invalid simple value %d", n)
			}
		case 2:
			n = uint64(binary.BigEndian.Uint16(arg))
		case 4:
			n = uint64(binary.BigEndian.Uint32(arg))
		default:
			n = binary.BigEndian.Uint64(arg)
		}
		return major, ai, n, off + size, nil
	case ai == 31:
		switch major {
		case majorBytes, majorText, majorArray, majorMap:
			return major, ai, 0, off, nil
		}
		return 0, 0, 0, 0, fmt.Errorf("%s with indefinite length or a stray break", majorNames[major>>5])
	}
	return 0, 0, 0, 0, fmt.Errorf("%s with reserved additional information %d", majorNames[major>>5], ai)
}

// stripSelfDescribed drops leading self-described CBOR tags (in any head
// form) from a well-formed item.
func stripSelfDescribed(item []byte) []byte {
	for len(item) > 0 && item[0]&0xe0 == majorTag {
		_, _, n, next, err := anyHead(item, 0)
		if err != nil || n != selfDescribedTag {
			break
		}
		item = item[next:]
	}
	return item
}

// checkBuiltinTag checks the first byte of a tag's content against the
// types RFC 8949 gives tags 0 (date text), 1 (epoch time), 2 and 3
// (bignums).
func checkBuiltinTag(tag uint64, content byte) error {
	major := content & 0xe0
	var ok bool
	switch tag {
	case 0:
		ok = major == majorText
	case 1:
		ok = major == majorUint || major == majorNeg || (content >= 0xf9 && content <= 0xfb)
	case 2, 3:
		ok = major == majorBytes
	default:
		return nil
	}
	if !ok {
		return fmt.Errorf("tag %d over a %s", tag, majorNames[major>>5])
	}
	return nil
}
