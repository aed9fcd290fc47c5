package subtensor

import (
	"cmp"
	"slices"

	"github.com/affine-ledger/ledger/chain/scale"
)

// The type registry of metadata v14: scale-info's PortableRegistry,
// Vec<PortableType> with
//
//	PortableType = compact id || path Vec<Text>
//	               || params Vec<(name Text, Option<compact type>)>
//	               || def || docs Vec<Text>
//	def = 0 composite Vec<Field> | 1 variant Vec<Variant>
//	      | 2 sequence (compact type) | 3 array (u32 len, compact type)
//	      | 4 tuple Vec<compact type> | 5 primitive (u8 0–14: bool … i256)
//	      | 6 compact (compact type) | 7 bit sequence (compact, compact)
//	Field = Option<name Text> || compact type || Option<type name Text>
//	        || docs Vec<Text>
//	Variant = name Text || fields Vec<Field> || u8 index || docs Vec<Text>
//
// The registry pass records where each type starts; lookup decodes the one
// type asked for, keeping its shape (typeDef) without its path, field names
// and docs.

const (
	defComposite = iota
	defVariant
	defSequence
	defArray
	defTuple
	defPrimitive
	defCompact
	defBitSequence
)

// maxPrimitive is the last primitive (i256).
const maxPrimitive = 14

// typeRegistry finds a type's encoding in the metadata by its id.
type typeRegistry struct {
	raw     []byte
	entries []typeEntry // sorted by id, ids distinct
}

type typeEntry struct{ id, off uint32 }

// typeDef is a type's shape, all that decoding a value of it needs: its
// kind, the types of a composite's fields or a tuple's elements, a
// variant's names and indices (a pallet's call, event and error enums) and,
// looked up by shape, the types of each variant's fields, the element type
// of a sequence, array or compact (a bit sequence's store type), an
// array's length and a primitive's number.
type typeDef struct {
	kind     uint8
	fields   []uint32
	variants []variantDef
	// variantFields[i] are the field types of variants[i]; kept apart, and
	// only by shape, so that ParseMetadata's lookup of a call enum keeps
	// 24 bytes for each 4-byte variant.
	variantFields [][]uint32
	elem          uint32
	length        uint32
	prim          uint8
}

type variantDef struct {
	name  string
	index uint8
}

// registry walks the types and indexes them by id. raw is the whole
// metadata, which the walker reads.
func (w *walker) registry(raw []byte) typeRegistry {
	w.item("types", -1)
	n := w.d.Len(maxTypes, minPortableType, "types")
	reg := typeRegistry{raw: raw, entries: make([]typeEntry, 0, n)}
	for i := 0; i < n && w.d.Err() == nil; i++ {
		w.item("type", i)
		off := uint32(w.d.Offset()) // raw is at most maxMetadata bytes
		id, _ := w.portableType(false)
		reg.entries = append(reg.entries, typeEntry{id: id, off: off})
	}
	if w.d.Err() != nil {
		return reg
	}
	// Ids are 0, 1, … in the metadata Substrate produces; any order is
	// read, but an id twice would make the lookup ambiguous.
	slices.SortFunc(reg.entries, func(a, b typeEntry) int { return cmp.Compare(a.id, b.id) })
	for i := 1; i < len(reg.entries); i++ {
		if reg.entries[i].id == reg.entries[i-1].id {
			w.item("types", -1)
			w.d.Fail("type id %d appears twice", reg.entries[i].id)
			break
		}
	}
	return reg
}

// lookup decodes the type with the given id, without its variants' field
// types; false if there is none.
func (r typeRegistry) lookup(id uint32) (typeDef, bool) { return r.decode(id, false) }

// shape decodes the type with the given id, its variants' field types
// included; false if there is none.
func (r typeRegistry) shape(id uint32) (typeDef, bool) { return r.decode(id, true) }

func (r typeRegistry) decode(id uint32, shape bool) (typeDef, bool) {
	i, ok := slices.BinarySearchFunc(r.entries, id, func(e typeEntry, id uint32) int { return cmp.Compare(e.id, id) })
	if !ok {
		return typeDef{}, false
	}
	// The registry pass read these bytes without error; they read the
	// same again.
	w := &walker{d: scale.NewDecoder(r.raw[r.entries[i].off:]), shape: shape}
	_, def := w.portableType(true)
	return def, w.d.Err() == nil
}

// portableType reads one type; keep says whether to return its fields and
// variants or only walk over them.
func (w *walker) portableType(keep bool) (uint32, typeDef) {
	id := w.typeID()
	w.part("path")
	n := w.d.Len(maxLen, minText, "path")
	for j := 0; j < n && w.d.Err() == nil; j++ {
		w.text()
	}
	w.part("params")
	n = w.d.Len(maxLen, minTypeParam, "type params")
	for j := 0; j < n && w.d.Err() == nil; j++ {
		w.text()
		if w.option() {
			w.typeID()
		}
	}
	w.part("def")
	def := w.typeDef(keep)
	w.part("docs")
	w.docs()
	return id, def
}

func (w *walker) typeDef(keep bool) typeDef {
	var def typeDef
	def.kind = w.d.U8()
	switch def.kind {
	case defComposite:
		def.fields = w.fields(keep)
	case defVariant:
		n := w.d.Len(maxLen, minVariant, "variants")
		if keep {
			def.variants = make([]variantDef, 0, n)
		}
		for j := 0; j < n && w.d.Err() == nil; j++ {
			w.sub("variant", j)
			name := w.text()
			fields := w.fields(keep && w.shape)
			index := w.d.U8()
			w.docs()
			if keep {
				def.variants = append(def.variants, variantDef{name: string(name), index: index})
			}
			if keep && w.shape {
				def.variantFields = append(def.variantFields, fields)
			}
		}
	case defSequence, defCompact:
		def.elem = w.typeID()
	case defArray:
		def.length = w.d.U32()
		def.elem = w.typeID()
	case defTuple:
		n := w.d.Len(maxLen, minTypeID, "tuple")
		if keep {
			def.fields = make([]uint32, 0, n)
		}
		for j := 0; j < n && w.d.Err() == nil; j++ {
			if t := w.typeID(); keep {
				def.fields = append(def.fields, t)
			}
		}
	case defPrimitive:
		if def.prim = w.d.U8(); def.prim > maxPrimitive {
			w.d.Fail("primitive %d", def.prim)
		}
	case defBitSequence:
		def.elem = w.typeID() // the store type; the order type does not change the encoding
		w.typeID()
	default:
		w.d.Fail("type def tag %d", def.kind)
	}
	return def
}

// fields walks a Vec<Field>, returning the field types if keep.
func (w *walker) fields(keep bool) []uint32 {
	var types []uint32
	n := w.d.Len(maxLen, minField, "fields")
	if keep {
		types = make([]uint32, 0, n)
	}
	for j := 0; j < n && w.d.Err() == nil; j++ {
		if w.option() {
			w.text()
		}
		t := w.typeID()
		if w.option() {
			w.text()
		}
		w.docs()
		if keep {
			types = append(types, t)
		}
	}
	return types
}
