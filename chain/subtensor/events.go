package subtensor

import (
	"fmt"

	"github.com/affine-ledger/ledger/chain/scale"
)

// System.Events, the events of one block (frame_system), as the node
// stores them:
//
//	Vec<EventRecord>, EventRecord = phase || event || topics Vec<[u8; 32]>
//	phase = 0x00 u32 (ApplyExtrinsic: the extrinsic's index in the block)
//	        | 0x01 (Finalization) | 0x02 (Initialization)
//	event = RuntimeEvent: u8 pallet index || the pallet's event enum
//
// A pallet's event is a variant of the enum whose type the metadata gives
// for the pallet; its fields are decoded from the type registry. Every
// extrinsic applied in the block gets one System.ExtrinsicSuccess or
// System.ExtrinsicFailed {dispatch_error, dispatch_info} in its phase.
//
// The decoder is driven by a registry the node supplies, so it is bounded
// whatever that registry says: types nest at most maxValueDepth deep (a
// type that contains itself stops there) and decoding takes at most a
// fixed number of steps per byte of events (a vector of a million empty
// values is refused, not walked).

const (
	// maxEventRecords bounds the records; the bytes left bound them more
	// tightly.
	maxEventRecords = 1 << 20
	// minEventRecord: phase, pallet, variant, no topics.
	minEventRecord = 4
	// maxValueDepth bounds the nesting of types in an event (real
	// runtimes' events nest about ten deep).
	maxValueDepth = 64
	// stepsPerByte and minSteps bound the types visited: an event's value
	// visits about one type per byte.
	stepsPerByte = 16
	minSteps     = 1 << 12
)

// The primitives (scale-info's TypeDefPrimitive): bool, char, str, u8 …
// u256, i8 … i256.
const (
	primBool = iota
	primChar
	primStr
	primU8
)

// primSize is the encoded size of each fixed-size primitive, by number;
// str (a compact length and the bytes) is 0.
var primSize = [maxPrimitive + 1]int{1, 4, 0, 1, 2, 4, 8, 16, 32, 1, 2, 4, 8, 16, 32}

// eventRecord is what the client reads of one event.
type eventRecord struct {
	// extrinsic is the index in the block of the extrinsic whose
	// application emitted the event; -1 for events of the block's
	// initialization and finalization.
	extrinsic int
	pallet    string
	name      string
	// failure is System.ExtrinsicFailed's dispatch error.
	failure *dispatchError
}

// dispatchError is sp_runtime's DispatchError, by name.
type dispatchError struct {
	// variant is DispatchError's variant: Module, BadOrigin, Token, …
	variant string
	// inner is the variant of an error nested in it (Token's
	// FundsUnavailable, Arithmetic's Overflow), if any.
	inner string
	// For a Module error: the pallet's index and the first byte of its
	// error (the variant index of the pallet's error enum), and their
	// names when the metadata has them.
	module             bool
	palletIndex, index uint8
	pallet, error      string
}

func (e *dispatchError) String() string {
	switch {
	case !e.module && e.inner != "":
		return e.variant + "." + e.inner
	case !e.module:
		return e.variant
	case e.pallet == "":
		return fmt.Sprintf("Module pallet %d error %d", e.palletIndex, e.index)
	case e.error == "":
		return fmt.Sprintf("%s error %d", e.pallet, e.index)
	}
	return e.pallet + "." + e.error
}

// decodeEvents reads a System.Events value with m's types. Its errors
// wrap scale.ErrMalformed and name the record and what in it is wrong.
func decodeEvents(m *metadataV14, raw []byte) ([]eventRecord, error) {
	v := &valueReader{
		d: scale.NewDecoder(raw), reg: m.types, shapes: map[uint32]typeDef{},
		steps: minSteps + stepsPerByte*len(raw),
	}
	n := v.d.Len(maxEventRecords, minEventRecord, "events")
	out := make([]eventRecord, 0, n)
	for i := 0; i < n && v.d.Err() == nil; i++ {
		r := v.record(m)
		if err := v.d.Err(); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		out = append(out, r)
	}
	if err := v.d.Finish(); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return out, nil
}

// valueReader reads values of the registry's types: it skips most and
// reads the few the client looks at (an event's phase and names, a
// dispatch error).
type valueReader struct {
	d      *scale.Decoder
	reg    typeRegistry
	shapes map[uint32]typeDef // types looked up so far
	steps  int                // types it may still visit
}

func (v *valueReader) record(m *metadataV14) eventRecord {
	r := eventRecord{extrinsic: -1}
	switch phase := v.d.U8(); phase {
	case 0:
		r.extrinsic = int(v.d.U32())
	case 1, 2:
	default:
		v.d.Fail("phase %d", phase)
	}
	pi := v.d.U8()
	p, ok := m.palletAt(pi)
	if v.d.Err() != nil {
		return r
	}
	if !ok || !p.hasEvents {
		v.d.Fail("pallet index %d has no events", pi)
		return r
	}
	r.pallet = p.name
	def, ok := v.shape(p.events)
	if !ok || def.kind != defVariant {
		v.d.Fail("pallet %s: event type %d is not an enum", p.name, p.events)
		return r
	}
	i, ok := v.variant(def)
	if !ok {
		return r
	}
	r.name = def.variants[i].name
	fields := def.variantFields[i]
	if r.pallet == "System" && r.name == "ExtrinsicFailed" && len(fields) > 0 {
		r.failure = v.dispatchError(m, fields[0])
		fields = fields[1:]
	}
	for _, f := range fields {
		v.skip(f, 1)
	}
	v.d.Fixed(32 * v.d.Len(maxEventRecords, 32, "topics"))
	return r
}

// variant reads an enum's variant index; false (and the decoder failed)
// if def has no such variant.
func (v *valueReader) variant(def typeDef) (int, bool) {
	index := v.d.U8()
	if v.d.Err() != nil {
		return 0, false
	}
	for i, vd := range def.variants {
		if vd.index == index {
			return i, true
		}
	}
	v.d.Fail("variant %d is not in its enum", index)
	return 0, false
}

// dispatchError reads a DispatchError of type id: its variant's name, and
// for Module the pallet and error indices, named from the metadata. A
// Module whose ModuleError is not {index u8, error u8 or [u8; N ≥ 1], …}
// is skipped and reported by its variant alone.
func (v *valueReader) dispatchError(m *metadataV14, id uint32) *dispatchError {
	def, ok := v.shape(id)
	if !ok || def.kind != defVariant {
		v.d.Fail("dispatch error type %d is not an enum", id)
		return nil
	}
	i, ok := v.variant(def)
	if !ok {
		return nil
	}
	e := &dispatchError{variant: def.variants[i].name}
	fields := def.variantFields[i]
	switch {
	case len(fields) == 1 && e.variant == "Module" && v.moduleError(fields[0], e):
		if p, ok := m.palletAt(e.palletIndex); ok {
			e.pallet = p.name
			e.error = v.errorName(p, e.index)
		}
	case len(fields) == 1:
		if inner, ok := v.shape(fields[0]); ok && inner.kind == defVariant {
			if j, ok := v.variant(inner); ok {
				e.inner = inner.variants[j].name
				for _, f := range inner.variantFields[j] {
					v.skip(f, 2)
				}
			}
			break
		}
		v.skip(fields[0], 1)
	default:
		for _, f := range fields {
			v.skip(f, 1)
		}
	}
	return e
}

// moduleError reads a ModuleError into e if type id has its shape;
// otherwise it reads nothing and reports false.
func (v *valueReader) moduleError(id uint32, e *dispatchError) bool {
	def, ok := v.shape(id)
	if !ok || def.kind != defComposite || len(def.fields) < 2 || !v.isU8(def.fields[0]) {
		return false
	}
	errDef, ok := v.shape(def.fields[1])
	isArray := ok && errDef.kind == defArray && errDef.length >= 1 && v.isU8(errDef.elem)
	if !isArray && !v.isU8(def.fields[1]) {
		return false
	}
	e.module = true
	e.palletIndex, e.index = v.d.U8(), v.d.U8()
	if isArray {
		v.d.Fixed(int(errDef.length) - 1)
	}
	for _, f := range def.fields[2:] {
		v.skip(f, 2)
	}
	return true
}

// errorName is the name of variant index of p's error enum; "" if it has
// none.
func (v *valueReader) errorName(p palletV14, index uint8) string {
	if !p.hasErrors {
		return ""
	}
	def, ok := v.shape(p.errors)
	if !ok || def.kind != defVariant {
		return ""
	}
	for _, vd := range def.variants {
		if vd.index == index {
			return vd.name
		}
	}
	return ""
}

func (v *valueReader) isU8(id uint32) bool {
	def, ok := v.shape(id)
	return ok && def.kind == defPrimitive && def.prim == primU8
}

// shape looks a type up once per decoding.
func (v *valueReader) shape(id uint32) (typeDef, bool) {
	if def, ok := v.shapes[id]; ok {
		return def, true
	}
	def, ok := v.reg.shape(id)
	if ok {
		v.shapes[id] = def
	}
	return def, ok
}

// skip reads over a value of type id, nested depth deep.
func (v *valueReader) skip(id uint32, depth int) {
	if v.d.Err() != nil {
		return
	}
	if v.steps--; v.steps < 0 {
		v.d.Fail("events take more decoding steps than their length allows")
		return
	}
	if depth > maxValueDepth {
		v.d.Fail("type %d nested more than %d deep", id, maxValueDepth)
		return
	}
	def, ok := v.shape(id)
	if !ok {
		v.d.Fail("type %d is not in the registry", id)
		return
	}
	switch def.kind {
	case defComposite, defTuple:
		for _, f := range def.fields {
			v.skip(f, depth+1)
		}
	case defVariant:
		if i, ok := v.variant(def); ok {
			for _, f := range def.variantFields[i] {
				v.skip(f, depth+1)
			}
		}
	case defSequence:
		v.repeat(def.elem, v.d.Len(maxLen, 0, "sequence"), depth)
	case defArray:
		v.repeat(def.elem, int(def.length), depth)
	case defPrimitive:
		v.primitive(def.prim)
	case defCompact:
		v.compact()
	case defBitSequence:
		v.bits(def.elem)
	}
}

// repeat reads over n values of type elem; n of a fixed-size primitive at
// once (bools then unchecked).
func (v *valueReader) repeat(elem uint32, n int, depth int) {
	if def, ok := v.shape(elem); ok && def.kind == defPrimitive && primSize[def.prim] > 0 {
		v.fixed(n, primSize[def.prim])
		return
	}
	for i := 0; i < n && v.d.Err() == nil; i++ {
		v.skip(elem, depth+1)
	}
}

// fixed reads over n values of size bytes, refusing more than are left.
func (v *valueReader) fixed(n, size int) {
	if n > v.d.Remaining()/size {
		v.d.Fail("%d values of %d bytes, %d bytes left", n, size, v.d.Remaining())
		return
	}
	v.d.Fixed(n * size)
}

func (v *valueReader) primitive(p uint8) {
	switch p {
	case primBool:
		v.d.Bool()
	case primStr:
		v.d.Fixed(v.d.Len(maxLen, 1, "str"))
	default:
		v.d.Fixed(primSize[p])
	}
}

// compact reads over a compact integer of any width (u128 included): the
// low two bits of its first byte give 1, 2 or 4 bytes, or (0b11) 4 plus
// the upper six bits more bytes.
func (v *valueReader) compact() {
	first := v.d.U8()
	switch first & 0b11 {
	case 0b01:
		v.d.Fixed(1)
	case 0b10:
		v.d.Fixed(3)
	case 0b11:
		v.d.Fixed(int(first>>2) + 4)
	}
}

// bits reads over a BitVec: a compact count of bits, then the whole store
// elements (of type store, u8 … u64) that hold them.
func (v *valueReader) bits(store uint32) {
	def, ok := v.shape(store)
	if !ok || def.kind != defPrimitive || def.prim < primU8 || primSize[def.prim] > 8 {
		v.d.Fail("bit sequence store type %d is not u8 … u64", store)
		return
	}
	n := v.d.Compact()
	size := uint64(primSize[def.prim])
	words := n/(8*size) + min(n%(8*size), 1)
	if v.d.Err() == nil && words > uint64(v.d.Remaining()) {
		v.d.Fail("bit sequence of %d bits, %d bytes left", n, v.d.Remaining())
		return
	}
	v.fixed(int(words), int(size))
}

// palletAt is the pallet with the given index.
func (m *metadataV14) palletAt(index uint8) (palletV14, bool) {
	for _, p := range m.pallets {
		if p.index == index {
			return p, true
		}
	}
	return palletV14{}, false
}
