package codec

import (
	"hash/maphash"
	"reflect"
	"sync/atomic"
)

// A memo remembers items of a custom type (plan kind planCustom) that were
// read and found canonical, with the values they decode to, so that an item
// seen again (a validator's key in every transcript of its chain) skips the
// UnmarshalCBOR and MarshalCBOR round trip. That is exact as long as both
// methods are functions of their input alone, which the canonical encoding
// requires of them anyway: the same bytes decode to the same value, which
// encodes to the same bytes. Only types whose values share no memory (no
// pointers, slices or maps; strings are immutable) are memoized, so a value
// handed out twice is two independent copies.
type memo struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoEntry]
}

// memoSlots bounds a memo: a direct-mapped table, the latest item wins.
const memoSlots = 64

type memoEntry struct {
	item string
	val  reflect.Value // never modified
}

func newMemo(t reflect.Type) *memo {
	if !plainType(t) {
		return nil
	}
	return &memo{seed: maphash.MakeSeed()}
}

func (m *memo) slot(item []byte) *atomic.Pointer[memoEntry] {
	return &m.slots[maphash.Bytes(m.seed, item)%memoSlots]
}

// get stores in v the value item decodes to, if remembered.
func (m *memo) get(item []byte, v reflect.Value) bool {
	e := m.slot(item).Load()
	if e == nil || e.item != string(item) {
		return false
	}
	v.Set(e.val)
	return true
}

// put remembers that item decodes to v.
func (m *memo) put(item []byte, v reflect.Value) {
	val := reflect.New(v.Type()).Elem()
	val.Set(v)
	m.slot(item).Store(&memoEntry{item: string(item), val: val})
}

// plainType reports whether values of t hold no reference to other memory
// but immutable strings.
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
