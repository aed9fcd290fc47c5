package codec

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fxamacker/cbor/v2"
)

// The direct encoder writes a value of a planned type (plan.go) by walking
// its memory along the plan: the bytes fxamacker's encMode writes for the
// same value, without its reflection per field or its buffer copies. It
// makes two passes: the first measures the encoding (and calls each
// MarshalCBOR, keeping the result), the second writes it into a buffer
// allocated once at the exact size. TestMarshalMatchesGeneral and
// FuzzMarshalMatchesGeneral hold it to fxamacker's output byte for byte.
//
// What encMode (cbor.go) writes, and so what this writes:
//   - integers in their shortest head; strings as text strings, their
//     bytes as they are (fxamacker does not check UTF-8 when encoding);
//   - nil slices and nil byte slices as empty ones (NilContainerAsEmpty);
//     nil pointers as null;
//   - a zero Link as null, any other as tag 42 over 0x00 and its CID;
//   - a custom type's MarshalCBOR output as it is, neither re-sorted nor
//     re-encoded, after the check fxamacker makes of it: exactly one
//     well-formed item, definite lengths, built-in tags 0 to 3 over
//     content of the right type (checkMarshaled).

// marshalDirect returns the encoding of v, a value of p's type.
func marshalDirect(p *plan, v reflect.Value) ([]byte, error) {
	var ptr unsafe.Pointer
	if p.kind == planPointer {
		// The pointer itself is the value: go straight to its target.
		ptr = v.UnsafePointer()
		if ptr == nil {
			return []byte{cborNull}, nil
		}
		p = p.elem
	} else {
		// The walk reads memory by address: an interface's copy of a
		// value has none that reflect hands out, so take one.
		c := reflect.New(p.typ)
		c.Elem().Set(v)
		ptr = c.UnsafePointer()
	}
	e := encoders.Get().(*encoder)
	defer e.release()
	n, err := e.size(p, ptr)
	if err != nil {
		return nil, err
	}
	e.buf = make([]byte, 0, n)
	e.write(p, ptr)
	out := e.buf
	if len(out) != n {
		// Only a value changed by another goroutine between the two
		// passes (a data race in the caller) gets here.
		return nil, fmt.Errorf("value changed while being encoded (%d bytes measured, %d written)", n, len(out))
	}
	return out, nil
}

type encoder struct {
	buf []byte
	// custom holds copies of the MarshalCBOR results of the size pass (a
	// method may reuse the memory it returned), one after another in the
	// order the write pass meets them again; ends has where each ends,
	// next is the write pass's place.
	custom []byte
	ends   []int
	next   int
}

// encoders keeps encoders for their custom buffers.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

// maxPooledCustom bounds the custom buffer an encoder keeps in the pool.
const maxPooledCustom = 64 << 10

func (e *encoder) release() {
	custom := e.custom[:0]
	if cap(custom) > maxPooledCustom {
		custom = nil
	}
	*e = encoder{custom: custom, ends: e.ends[:0]}
	encoders.Put(e)
}

// size returns the length of the encoding of the value at ptr, and calls
// the MarshalCBOR methods on the way.
func (e *encoder) size(p *plan, ptr unsafe.Pointer) (int, error) {
	switch p.kind {
	case planBool:
		return 1, nil
	case planUint:
		return headLen(loadUint(ptr, p.bits)), nil
	case planInt:
		return headLen(intArg(loadInt(ptr, p.bits))), nil
	case planString:
		n := len(*(*string)(ptr))
		return headLen(uint64(n)) + n, nil
	case planBytes:
		n := len(*(*[]byte)(ptr))
		return headLen(uint64(n)) + n, nil
	case planByteArray:
		return headLen(uint64(p.n)) + p.n, nil
	case planSlice:
		data, n := sliceOf(ptr)
		// As the general path does (skipItem): no bytes that Unmarshal
		// would refuse to read back.
		if n > maxArray {
			return 0, fmt.Errorf("array of %d elements exceeds the limit of %d", n, maxArray)
		}
		total := headLen(uint64(n))
		stride := p.elem.typ.Size()
		for i := range n {
			m, err := e.size(p.elem, unsafe.Add(data, uintptr(i)*stride))
			if err != nil {
				return 0, fmt.Errorf("element %d: %w", i, err)
			}
			total += m
		}
		return total, nil
	case planPointer:
		target := *(*unsafe.Pointer)(ptr)
		if target == nil {
			return 1, nil
		}
		return e.size(p.elem, target)
	case planStruct:
		total := len(p.head)
		for i := range p.fields {
			f := &p.fields[i]
			m, err := e.size(f.plan, unsafe.Add(ptr, f.offset))
			if err != nil {
				return 0, fmt.Errorf("field %q: %w", f.name, err)
			}
			total += len(f.key) + m
		}
		return total, nil
	case planLink:
		k := (*Link)(ptr).Cid.KeyString()
		if k == "" {
			return 1, nil
		}
		return 2 + headLen(uint64(1+len(k))) + 1 + len(k), nil
	case planCustom:
		b, err := marshalCustom(p, ptr)
		if err != nil {
			return 0, err
		}
		e.custom = append(e.custom, b...)
		e.ends = append(e.ends, len(e.custom))
		return len(b), nil
	}
	return 0, fmt.Errorf("codec: no encoder for plan kind %d", p.kind)
}

// write appends the encoding of the value at ptr, which size measured.
func (e *encoder) write(p *plan, ptr unsafe.Pointer) {
	switch p.kind {
	case planBool:
		b := byte(cborFalse)
		if *(*bool)(ptr) {
			b = cborTrue
		}
		e.buf = append(e.buf, b)
	case planUint:
		e.buf = appendHead(e.buf, majorUint, loadUint(ptr, p.bits))
	case planInt:
		if i := loadInt(ptr, p.bits); i < 0 {
			e.buf = appendHead(e.buf, majorNeg, intArg(i))
		} else {
			e.buf = appendHead(e.buf, majorUint, uint64(i))
		}
	case planString:
		s := *(*string)(ptr)
		e.buf = append(appendHead(e.buf, majorText, uint64(len(s))), s...)
	case planBytes:
		b := *(*[]byte)(ptr)
		e.buf = append(appendHead(e.buf, majorBytes, uint64(len(b))), b...)
	case planByteArray:
		e.buf = appendHead(e.buf, majorBytes, uint64(p.n))
		e.buf = append(e.buf, unsafe.Slice((*byte)(ptr), p.n)...)
	case planSlice:
		data, n := sliceOf(ptr)
		e.buf = appendHead(e.buf, majorArray, uint64(n))
		stride := p.elem.typ.Size()
		for i := range n {
			e.write(p.elem, unsafe.Add(data, uintptr(i)*stride))
		}
	case planPointer:
		target := *(*unsafe.Pointer)(ptr)
		if target == nil {
			e.buf = append(e.buf, cborNull)
			return
		}
		e.write(p.elem, target)
	case planStruct:
		e.buf = append(e.buf, p.head...)
		for i := range p.fields {
			f := &p.fields[i]
			e.buf = append(e.buf, f.key...)
			e.write(f.plan, unsafe.Add(ptr, f.offset))
		}
	case planLink:
		// What Link.MarshalCBOR returns, without the allocation.
		k := (*Link)(ptr).Cid.KeyString()
		if k == "" {
			e.buf = append(e.buf, cborNull)
			return
		}
		e.buf = append(e.buf, majorTag|24, linkTag)
		e.buf = appendHead(e.buf, majorBytes, uint64(1+len(k)))
		e.buf = append(append(e.buf, 0x00), k...)
	case planCustom:
		start := 0
		if e.next > 0 {
			start = e.ends[e.next-1]
		}
		e.buf = append(e.buf, e.custom[start:e.ends[e.next]]...)
		e.next++
	}
}

// marshalCustom calls the MarshalCBOR of the value at ptr as fxamacker
// does (on a copy when the method wants a pointer) and checks its output
// as fxamacker does.
func marshalCustom(p *plan, ptr unsafe.Pointer) ([]byte, error) {
	if m := p.encMemo; m != nil {
		return m.marshal(p, ptr)
	}
	return callMarshaler(p, ptr)
}

func callMarshaler(p *plan, ptr unsafe.Pointer) ([]byte, error) {
	v := reflect.NewAt(p.typ, ptr)
	if !p.byValue {
		c := reflect.New(p.typ)
		c.Elem().Set(v.Elem())
		v = c
	}
	b, err := v.Interface().(cbor.Marshaler).MarshalCBOR()
	if err != nil {
		return nil, err
	}
	if err := checkMarshaled(b); err != nil {
		return nil, fmt.Errorf("MarshalCBOR of %s: %w", p.typ, err)
	}
	return b, nil
}

// An encMemo remembers MarshalCBOR results of a custom type whose values
// are their bits (integers and arrays and structs of them, without
// padding: keys, hashes, signatures), so that a value met again (the
// validator's key in every transcript it signs) is not encoded again. Like
// the decoder's memo (memo.go) it relies on MarshalCBOR being a function
// of the value alone, which a canonical encoding needs anyway. A slot
// takes a value the second time in a row it is missed there, so values
// met once (signatures) never cost an allocation.
type encMemo struct {
	seed maphash.Seed
	size uintptr
	// seen holds, per slot, the hash of the value last missed there.
	seen  [encMemoSlots]atomic.Uint64
	slots [encMemoSlots]atomic.Pointer[encMemoEntry]
}

const (
	encMemoSlots = 64
	// encMemoMaxSize bounds the values worth hashing instead of encoding.
	encMemoMaxSize = 128
)

type encMemoEntry struct {
	value string // the value's bits
	out   []byte // never modified
}

func newEncMemo(t reflect.Type) *encMemo {
	if t.Size() > encMemoMaxSize || !bitsType(t) {
		return nil
	}
	return &encMemo{seed: maphash.MakeSeed(), size: t.Size()}
}

func (m *encMemo) marshal(p *plan, ptr unsafe.Pointer) ([]byte, error) {
	bits := unsafe.Slice((*byte)(ptr), m.size)
	h := maphash.Bytes(m.seed, bits)
	i := h % encMemoSlots
	if e := m.slots[i].Load(); e != nil && e.value == string(bits) {
		return e.out, nil
	}
	out, err := callMarshaler(p, ptr)
	if err == nil && m.seen[i].Swap(h) == h {
		m.slots[i].Store(&encMemoEntry{value: string(bits), out: bytes.Clone(out)})
	}
	return out, err
}

// bitsType reports whether values of t are equal exactly when their bytes
// in memory are: no pointers, strings, floats or padding.
func bitsType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Array:
		return bitsType(t.Elem())
	case reflect.Struct:
		var sum uintptr
		for i := range t.NumField() {
			f := t.Field(i)
			if !bitsType(f.Type) {
				return false
			}
			sum += f.Type.Size()
		}
		return sum == t.Size()
	}
	return false
}

// sliceOf returns the data pointer and length of the slice at ptr, of any
// element type (every slice header has the same layout).
func sliceOf(ptr unsafe.Pointer) (unsafe.Pointer, int) {
	s := *(*[]byte)(ptr)
	return unsafe.Pointer(unsafe.SliceData(s)), len(s)
}

func loadUint(ptr unsafe.Pointer, bits int) uint64 {
	switch bits {
	case 8:
		return uint64(*(*uint8)(ptr))
	case 16:
		return uint64(*(*uint16)(ptr))
	case 32:
		return uint64(*(*uint32)(ptr))
	}
	return *(*uint64)(ptr)
}

func loadInt(ptr unsafe.Pointer, bits int) int64 {
	switch bits {
	case 8:
		return int64(*(*int8)(ptr))
	case 16:
		return int64(*(*int16)(ptr))
	case 32:
		return int64(*(*int32)(ptr))
	}
	return *(*int64)(ptr)
}

// intArg returns the head argument of i: i itself, or -1-i for a negative
// i (which cannot overflow, unlike -i).
func intArg(i int64) uint64 {
	if i < 0 {
		return uint64(-1 - i)
	}
	return uint64(i)
}

// headLen is the length of the shortest head with argument n.
func headLen(n uint64) int {
	switch {
	case n < 24:
		return 1
	case n <= math.MaxUint8:
		return 2
	case n <= math.MaxUint16:
		return 3
	case n <= math.MaxUint32:
		return 5
	}
	return 9
}

// marshaledLimits are the limits fxamacker's encoder applies to a
// MarshalCBOR result: its own maxima, not decMode's, so that a custom type
// may write what a plain value could.
var marshaledLimits = itemLimits{depth: 65535, array: math.MaxInt32, mapPairs: math.MaxInt32}

// checkMarshaled checks a MarshalCBOR result as fxamacker's encoder does
// before writing it: one well-formed item within marshaledLimits and
// nothing after it, definite lengths only, and the content of built-in
// tags 0 to 3 of the right type.
func checkMarshaled(b []byte) error {
	if len(b) == 0 {
		return io.EOF
	}
	end, err := walkItem(b, 0, 0, &marshaledLimits)
	if err != nil {
		return err
	}
	if end != len(b) {
		return fmt.Errorf("%d bytes after the item", len(b)-end)
	}
	return nil
}
