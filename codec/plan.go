package codec

import (
	"bytes"
	"encoding"
	"reflect"
	"slices"
	"sync"

	"github.com/fxamacker/cbor/v2"
)

// A plan is how the direct decoder (decode.go) reads one Go type and the
// direct encoder (encode.go) writes it: the grammar of exactly the bytes
// Marshal writes for values of that type. Plans are built by reflection
// once per type and cached. A type the planner does not fully understand
// gets no plan, and Unmarshal decodes it the general way (decode,
// re-encode, compare), Marshal encodes it with fxamacker.
type plan struct {
	kind planKind
	typ  reflect.Type
	// bits bounds planUint and planInt; n is a byte array's length.
	bits int
	n    int
	// elem is a slice's element or a pointer's target.
	elem *plan
	// fields of a struct, in the order Marshal writes them (keys sorted
	// length-first, then bytewise); head is the map head for that many.
	fields []planField
	head   []byte
	// depth is the CBOR nesting (arrays and maps) the type can reach,
	// custom items not counted: their own depth is checked as read.
	depth int
	// memo remembers a custom type's items (nil if its values are not
	// plain, see memo.go).
	memo *memo
	// byValue: a custom type's MarshalCBOR has a value receiver, so the
	// encoder may call it in place; otherwise it calls it on a copy, as
	// fxamacker does. encMemo remembers its results (nil if its values
	// are not their bits, see encode.go).
	byValue bool
	encMemo *encMemo
}

type planKind uint8

const (
	planBool planKind = iota
	planUint
	planInt
	planString
	planBytes     // a []byte slice: CBOR byte string
	planByteArray // a [n]byte array: CBOR byte string of exactly n bytes
	planSlice
	planPointer
	planStruct
	planLink   // codec.Link, read natively
	planCustom // cbor.Marshaler and cbor.Unmarshaler: round trip per item
)

type planField struct {
	name  string
	key   []byte // the encoded text key
	index []int  // reflect field index path (embedded structs promote)
	plan  *plan
	// offset is the field's place in the struct's memory, the sum of the
	// offsets along index (embedded structs are held by value), which
	// is how the encoder (encode.go) reaches it.
	offset uintptr
}

var (
	plans      sync.Map // reflect.Type -> *plan, or noPlan
	noPlan     = &plan{}
	typeLink   = reflect.TypeFor[Link]()
	typeByte   = reflect.TypeFor[byte]()
	marshaler  = reflect.TypeFor[cbor.Marshaler]()
	unmarsh    = reflect.TypeFor[cbor.Unmarshaler]()
	binMarsh   = reflect.TypeFor[encoding.BinaryMarshaler]()
	binUnmarsh = reflect.TypeFor[encoding.BinaryUnmarshaler]()
	cborPkg    = reflect.TypeFor[cbor.Tag]().PkgPath()
)

// maxDepth, maxArray and maxMapPairs are decMode's limits, which the
// direct decoder must apply exactly as the general path does.
const (
	maxDepth    = 32
	maxArray    = 1 << 20
	maxMapPairs = 1 << 12
)

// planFor returns t's plan, nil if t has none.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		if p == noPlan {
			return nil
		}
		return p.(*plan)
	}
	p := newPlanner().build(t)
	if p == nil || p.depth > maxDepth {
		plans.Store(t, noPlan)
		return nil
	}
	plans.Store(t, p)
	return p
}

type planner struct {
	// building holds the types on the current path: a recursive type gets
	// no plan (its depth is unbounded).
	building map[reflect.Type]bool
}

func newPlanner() *planner { return &planner{building: map[reflect.Type]bool{}} }

func (pl *planner) build(t reflect.Type) *plan {
	if pl.building[t] {
		return nil
	}
	pl.building[t] = true
	defer delete(pl.building, t)

	if t == typeLink {
		return &plan{kind: planLink, typ: t}
	}
	// Types with their own meaning to fxamacker (tags, times, big
	// numbers, raw messages, simple values) take the general path.
	if pkg := t.PkgPath(); pkg == cborPkg || pkg == "time" || pkg == "math/big" {
		return nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		m, u := pt.Implements(marshaler), pt.Implements(unmarsh)
		switch {
		case m && u:
			return &plan{kind: planCustom, typ: t, memo: newMemo(t), byValue: t.Implements(marshaler), encMemo: newEncMemo(t)}
		case m || u:
			return nil
		case pt.Implements(binMarsh) || pt.Implements(binUnmarsh):
			// Encoded through MarshalBinary: not worth a plan.
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &plan{kind: planBool, typ: t}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &plan{kind: planUint, typ: t, bits: t.Bits()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &plan{kind: planInt, typ: t, bits: t.Bits()}
	case reflect.String:
		return &plan{kind: planString, typ: t}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if t.Elem() != typeByte {
				return nil
			}
			return &plan{kind: planBytes, typ: t}
		}
		elem := pl.build(t.Elem())
		if elem == nil {
			return nil
		}
		return &plan{kind: planSlice, typ: t, elem: elem, depth: elem.depth + 1}
	case reflect.Array:
		if t.Elem() != typeByte {
			return nil
		}
		return &plan{kind: planByteArray, typ: t, n: t.Len()}
	case reflect.Pointer:
		elem := pl.build(t.Elem())
		if elem == nil {
			return nil
		}
		return &plan{kind: planPointer, typ: t, elem: elem, depth: elem.depth}
	case reflect.Struct:
		return pl.buildStruct(t)
	}
	return nil // floats, maps, interfaces, channels, functions, ...
}

func (pl *planner) buildStruct(t reflect.Type) *plan {
	if _, ok := t.FieldByName("_"); ok {
		return nil // struct options (toarray, ...)
	}
	var fields []planField
	if !pl.collect(t, nil, map[reflect.Type]bool{t: true}, &fields) {
		return nil
	}
	p := &plan{kind: planStruct, typ: t, depth: 1}
	seen := map[string]bool{}
	for i := range fields {
		f := &fields[i]
		if seen[f.name] {
			// Two fields of one name: fxamacker's visibility rules
			// decide, which the planner does not repeat.
			return nil
		}
		seen[f.name] = true
		f.key = appendHead(nil, majorText, uint64(len(f.name)))
		f.offset = fieldOffset(t, f.index)
		f.key = append(f.key, f.name...)
		p.depth = max(p.depth, f.plan.depth+1)
	}
	// SortLengthFirst: shorter encoded keys first, then bytewise.
	slices.SortFunc(fields, func(a, b planField) int {
		if len(a.key) != len(b.key) {
			return len(a.key) - len(b.key)
		}
		return bytes.Compare(a.key, b.key)
	})
	if len(fields) > maxMapPairs {
		return nil
	}
	p.fields = fields
	p.head = appendHead(nil, majorMap, uint64(len(fields)))
	return p
}

// collect appends t's encoded fields as fxamacker lists them for a struct
// without tag options, embedded structs promoted. It reports false for
// anything outside that simple case.
func (pl *planner) collect(t reflect.Type, index []int, visited map[reflect.Type]bool, out *[]planField) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		ft := f.Type
		tag := f.Tag.Get("cbor")
		if tag == "" {
			tag = f.Tag.Get("json")
		}
		if tag == "-" {
			continue
		}
		if bytes.ContainsRune([]byte(tag), ',') {
			return false // omitempty, keyasint, ...
		}
		idx := append(slices.Clone(index), i)
		if f.Anonymous {
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if ft.Kind() == reflect.Struct {
				if tag != "" && !f.IsExported() {
					return false
				}
			}
			if ft.Kind() == reflect.Struct && tag == "" {
				if visited[ft] || hasCodecMethods(ft) {
					return false
				}
				visited[ft] = true
				if !pl.collect(ft, idx, visited, out) {
					return false
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		name := tag
		if name == "" {
			name = f.Name
		}
		fp := pl.build(ft)
		if fp == nil {
			return false
		}
		*out = append(*out, planField{name: name, index: idx, plan: fp})
	}
	return true
}

// fieldOffset returns the offset in t of the field at index, through
// embedded structs.
func fieldOffset(t reflect.Type, index []int) uintptr {
	var off uintptr
	for _, i := range index {
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off
}

// hasCodecMethods reports whether t, or a pointer to it, has a method that
// changes how fxamacker encodes or decodes it.
func hasCodecMethods(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(marshaler) || pt.Implements(unmarsh) || pt.Implements(binMarsh) || pt.Implements(binUnmarsh)
}
