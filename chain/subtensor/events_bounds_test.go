package subtensor

import (
	"errors"
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"

	"github.com/affine-ledger/ledger/chain/scale"
)

// hostileMeta is subtensorMeta with SubtensorModule events whose types a
// broken or hostile node could declare: Deep (a composite that contains
// itself), Empties (Vec<()>), HugeArray ([(); 2^32-1]), WideBits (a bit
// sequence stored in u128), Depth64 and Depth65 (composites nested so
// that their u8 is at depth 64 and 65 from the event), and a
// DispatchError whose Module holds a u32 rather than a ModuleError.
func hostileMeta() types.Metadata {
	meta := subtensorMeta()
	m := &meta.AsMetadataV14
	def := func(id uint64, d types.Si1TypeDef) types.PortableTypeV14 {
		return types.PortableTypeV14{ID: typeID(id), Type: types.Si1Type{Def: d}}
	}
	m.Lookup.Types = append(m.Lookup.Types,
		composite(50, 2, 50),
		def(51, types.Si1TypeDef{IsSequence: true, Sequence: types.Si1TypeDefSequence{Type: typeID(1)}}),
		def(52, types.Si1TypeDef{IsArray: true, Array: types.Si1TypeDefArray{Len: 1<<32 - 1, Type: typeID(1)}}),
		def(53, types.Si1TypeDef{IsBitSequence: true, BitSequence: types.Si1TypeDefBitSequence{BitStoreType: typeID(40), BitOrderType: typeID(0)}}),
		composite(99, 100),
	)
	// An event's field is at depth 1: 100 … 162 at 1 … 63, the u8 at 64.
	for id := uint64(100); id < 163; id++ {
		m.Lookup.Types = append(m.Lookup.Types, composite(id, id+1))
	}
	m.Lookup.Types = append(m.Lookup.Types, types.PortableTypeV14{ID: typeID(163), Type: types.Si1Type{Def: types.Si1TypeDef{
		IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: types.IsU8}}}})
	for i := range m.Lookup.Types {
		switch m.Lookup.Types[i].ID.Int64() {
		case 42:
			vs := &m.Lookup.Types[i].Type.Def.Variant.Variants
			for j, name := range []string{"Deep", "Empties", "HugeArray", "WideBits"} {
				*vs = append(*vs, types.Si1Variant{Name: types.Text(name), Index: types.U8(201 + j), Fields: []types.Si1Field{{Type: typeID(uint64(50 + j))}}})
			}
			*vs = append(*vs, types.Si1Variant{Name: "Depth64", Index: 205, Fields: []types.Si1Field{{Type: typeID(100)}}},
				types.Si1Variant{Name: "Depth65", Index: 206, Fields: []types.Si1Field{{Type: typeID(99)}}})
		case 24: // DispatchError: Module(u32)
			m.Lookup.Types[i].Type.Def.Variant.Variants[3].Fields[0].Type = typeID(2)
		}
	}
	return meta
}

func hostileMetadata(t testing.TB) *metadataV14 {
	t.Helper()
	m, err := decodeMetadataV14(encodeMetadata(t, hostileMeta()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDecodeEventsMalformed: what is not a System.Events value under the
// metadata is an error naming the event and what is wrong, never a panic
// or an unbounded walk.
func TestDecodeEventsMalformed(t *testing.T) {
	t.Parallel()
	m, _ := subtensorMetadata(t)
	hostile := hostileMetadata(t)
	good := stEvents(t, libFailed(t, 2, moduleError(7, 79)))
	if _, err := decodeEvents(m, good); err != nil {
		t.Fatal(err)
	}
	for n := range len(good) {
		if _, err := decodeEvents(m, good[:n]); err == nil || !errors.Is(err, scale.ErrMalformed) {
			t.Fatalf("%d of %d bytes: %v", n, len(good), err)
		}
	}
	var compact16M scale.Encoder
	compact16M.Compact(maxLen)
	cases := []struct {
		name string
		m    *metadataV14
		raw  []byte
		want string
	}{
		{"trailing byte", m, append(events(libSuccess(t, 0)), 0), "trailing"},
		{"records past the bytes", m, []byte{0xfc, 0xff, 0xff, 0xff}, "events claims"},
		{"phase 3", m, events(cat([]byte{3, 0, 0}, stInfo, []byte{0})), "event 0: malformed SCALE: at byte 2: phase 3"},
		{"no such pallet", m, events(record(0, 5, 0, nil, 0)), "pallet index 5 has no events"},
		{"a pallet without events", m, events(record(0, 18, 0, nil, 0)), "pallet index 18 has no events"},
		{"no such event", m, events(libSuccess(t, 0), record(0, 0, 9, nil, 0)), "event 1: malformed SCALE: at byte 25: variant 9 is not in its enum"},
		{"no such dispatch error", m, events(record(0, 0, 1, cat([]byte{9}, stInfo), 0)), "variant 9 is not in its enum"},
		{"no such nested error", m, events(record(0, 0, 1, cat([]byte{7, 5}, stInfo), 0)), "variant 5 is not in its enum"},
		{"topics past the bytes", m, events(cat(libSuccess(t, 0)[:len(libSuccess(t, 0))-1], []byte{0x08}, fill(0, 63))), "topics claims 2"},
		{"no such dispatch class", m, events(record(0, 0, 0, cat(stInfo[:7], []byte{7, 0}), 0)), "variant 7 is not in its enum"},
		{"u128 compact cut", m, events(record(0, 7, 200, stNoted[:len(stNoted)-1], 0)), "needs"},
		{"a type that contains itself", hostile, events(record(0, 7, 201, fill(1, 4*100), 0)), "nested more than 64 deep"},
		{"16 million empty values", hostile, events(record(0, 7, 202, compact16M.Bytes(), 0)), "more decoding steps"},
		{"an array of 2^32-1 empty values", hostile, events(record(0, 7, 203, nil, 0)), "more decoding steps"},
		{"bits stored in u128", hostile, events(record(0, 7, 204, []byte{4, 1}, 0)), "bit sequence store type 40"},
		{"bits past the bytes", m, events(record(0, 7, 200, cat(stNoted[:11], []byte{0xfe, 0xff, 0xff, 0xff}), 0)), "bit sequence of"},
	}
	for _, c := range cases {
		_, err := decodeEvents(c.m, c.raw)
		if err == nil || !errors.Is(err, scale.ErrMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", c.name, err, c.want)
		}
	}
	// Nesting: 64 deep is read, 65 is not.
	if got, err := decodeEvents(hostile, events(record(0, 7, 205, []byte{9}, 0))); err != nil || got[0].name != "Depth64" {
		t.Fatalf("depth 64: %+v %v", got, err)
	}
	if _, err := decodeEvents(hostile, events(record(0, 7, 206, []byte{9}, 0))); err == nil || !strings.Contains(err.Error(), "type 163 nested more than 64 deep") {
		t.Fatalf("depth 65: %v", err)
	}
	// A Module error that is not a ModuleError is read over and reported
	// by its variant.
	got, err := decodeEvents(hostile, events(record(0, 0, 1, cat([]byte{3, 7, 79, 0, 0}, stInfo), 0)))
	if err != nil {
		t.Fatal(err)
	}
	if fail, err := outcome(got, 0); err != nil || fail.String() != "Module" {
		t.Fatalf("Module(u32): %v %v", fail, err)
	}
}
