package subtensor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"
)

// sameAsLibrary compares what decodeMetadataV14 kept with
// go-substrate-rpc-client's decoding of the same bytes: every type's kind,
// field and element types and variants, the pallets, the extrinsic and
// the runtime type.
func sameAsLibrary(m *metadataV14, lib *types.MetadataV14) error {
	if len(m.types.entries) != len(lib.Lookup.Types) {
		return fmt.Errorf("%d types, library %d", len(m.types.entries), len(lib.Lookup.Types))
	}
	for _, lt := range lib.Lookup.Types {
		id := uint32(lt.ID.Int64())
		def, ok := m.types.shape(id)
		if !ok {
			return fmt.Errorf("type %d missing", id)
		}
		if want := libraryDef(lt.Type.Def); !equalDefs(def, want) {
			return fmt.Errorf("type %d: %+v, library %+v", id, def, want)
		}
		// lookup is shape without the variants' fields.
		names, _ := m.types.lookup(id)
		def.variantFields = nil
		if !equalDefs(names, def) {
			return fmt.Errorf("type %d: lookup %+v, shape %+v", id, names, def)
		}
	}
	if len(m.pallets) != len(lib.Pallets) {
		return fmt.Errorf("%d pallets, library %d", len(m.pallets), len(lib.Pallets))
	}
	for i, lp := range lib.Pallets {
		want := palletV14{name: string(lp.Name), hasCalls: lp.HasCalls, hasEvents: lp.HasEvents, hasErrors: lp.HasErrors, index: uint8(lp.Index)}
		if lp.HasCalls {
			want.calls = uint32(lp.Calls.Type.Int64())
		}
		if lp.HasStorage {
			want.prefix = string(lp.Storage.Prefix)
			for _, e := range lp.Storage.Items {
				want.storage = append(want.storage, string(e.Name))
			}
		}
		if lp.HasEvents {
			want.events = uint32(lp.Events.Type.Int64())
		}
		if lp.HasErrors {
			want.errors = uint32(lp.Errors.Type.Int64())
		}
		got := m.pallets[i]
		if got.name != want.name || got.hasCalls != want.hasCalls || got.calls != want.calls || got.index != want.index ||
			got.prefix != want.prefix || !slices.Equal(got.storage, want.storage) ||
			got.hasEvents != want.hasEvents || got.events != want.events || got.hasErrors != want.hasErrors || got.errors != want.errors {
			return fmt.Errorf("pallet %d: %+v, library %+v", i, got, want)
		}
	}
	x := extrinsicV14{typ: uint32(lib.Extrinsic.Type.Int64()), version: uint8(lib.Extrinsic.Version)}
	for _, e := range lib.Extrinsic.SignedExtensions {
		x.extensions = append(x.extensions, signedExtensionV14{
			identifier: string(e.Identifier), typ: uint32(e.Type.Int64()), additional: uint32(e.AdditionalSigned.Int64()),
		})
	}
	if m.extrinsic.typ != x.typ || m.extrinsic.version != x.version || !slices.Equal(m.extrinsic.extensions, x.extensions) {
		return fmt.Errorf("extrinsic %+v, library %+v", m.extrinsic, x)
	}
	if m.runtimeTyp != uint32(lib.Type.Int64()) {
		return fmt.Errorf("runtime type %d, library %d", m.runtimeTyp, lib.Type.Int64())
	}
	return nil
}

func libraryDef(d types.Si1TypeDef) typeDef {
	var def typeDef
	switch {
	case d.IsComposite:
		def.kind = defComposite
		for _, f := range d.Composite.Fields {
			def.fields = append(def.fields, uint32(f.Type.Int64()))
		}
	case d.IsVariant:
		def.kind = defVariant
		for _, v := range d.Variant.Variants {
			var fields []uint32
			for _, f := range v.Fields {
				fields = append(fields, uint32(f.Type.Int64()))
			}
			def.variants = append(def.variants, variantDef{name: string(v.Name), index: uint8(v.Index)})
			def.variantFields = append(def.variantFields, fields)
		}
	case d.IsSequence:
		def.kind = defSequence
		def.elem = uint32(d.Sequence.Type.Int64())
	case d.IsArray:
		def.kind = defArray
		def.length, def.elem = uint32(d.Array.Len), uint32(d.Array.Type.Int64())
	case d.IsTuple:
		def.kind = defTuple
		for _, f := range d.Tuple {
			def.fields = append(def.fields, uint32(f.Int64()))
		}
	case d.IsPrimitive:
		def.kind = defPrimitive
		def.prim = uint8(d.Primitive.Si0TypeDefPrimitive)
	case d.IsCompact:
		def.kind = defCompact
		def.elem = uint32(d.Compact.Type.Int64())
	case d.IsBitSequence:
		def.kind = defBitSequence
		def.elem = uint32(d.BitSequence.BitStoreType.Int64())
	default:
		def.kind = 255
	}
	return def
}

func equalDefs(a, b typeDef) bool {
	return a.kind == b.kind && slices.Equal(a.fields, b.fields) && a.elem == b.elem && a.length == b.length && a.prim == b.prim &&
		slices.Equal(a.variants, b.variants) && slices.EqualFunc(a.variantFields, b.variantFields, slices.Equal)
}

// TestDecodeMetadataV14Sample decodes the real v14 metadata that
// go-substrate-rpc-client ships (a Substrate node, 347 KB, 600 types, 48
// pallets) and compares it with the library's decoding. No subtensor v14
// metadata is in this repository.
func TestDecodeMetadataV14Sample(t *testing.T) {
	t.Parallel()
	raw, err := codec.HexDecodeString(types.MetadataV14Data)
	if err != nil {
		t.Fatal(err)
	}
	m, lib := decodeAlike(t, raw)
	if len(m.types.entries) != 600 || len(m.pallets) != 48 || len(m.extrinsic.extensions) != 8 {
		t.Fatalf("%d types, %d pallets, %d extensions", len(m.types.entries), len(m.pallets), len(m.extrinsic.extensions))
	}
	calls := []string{"Balances.transfer", "System.remark", "Staking.bond", "Whitelist.whitelist_call", "Balances.force_transfer"}
	got, err := m.callIndices(calls...)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range calls {
		want, err := lib.AsMetadataV14.FindCallIndex(call)
		if err != nil {
			t.Fatal(err)
		}
		if got[call] != (CallIndex{Pallet: want.SectionIndex, Call: want.MethodIndex}) {
			t.Errorf("%s: %+v, library %+v", call, got[call], want)
		}
	}
	for _, missing := range []string{"Balances.no_such_call", "NoSuchPallet.remark", "TransactionPayment.none"} {
		if _, err := m.callIndices(missing); err == nil {
			t.Errorf("%s found", missing)
		}
	}
	// Its extensions carry data except CheckNonZeroSender and CheckWeight,
	// whose types are PhantomData and ().
	e := emptyTypes{reg: m.types, known: map[uint32]emptiness{}}
	for _, x := range m.extrinsic.extensions {
		empty := e.is(x.typ, 0) && e.is(x.additional, 0)
		if want := x.identifier == "CheckNonZeroSender" || x.identifier == "CheckWeight"; empty != want {
			t.Errorf("%s: empty %v", x.identifier, empty)
		}
	}
}

// metadataBytes is "meta", version 14 and then parts written with the
// package's own SCALE encoder: a compact is a uint64, a string text.
func metadataBytes(parts ...any) []byte {
	var e scale.Encoder
	e.Fixed([]byte("meta\x0e"))
	for _, p := range parts {
		switch p := p.(type) {
		case uint64:
			e.Compact(p)
		case int:
			e.Compact(uint64(p))
		case string:
			e.VecU8([]byte(p))
		case []byte:
			e.Fixed(p)
		}
	}
	return e.Bytes()
}

// Pieces of metadata: an empty pallet named X up to its constants, no
// storage, calls, event or error; an empty extrinsic; a u32 type.
var (
	palletX     = []byte{0x04, 'X', 0, 0, 0}
	noExtrinsic = []byte{0, 4, 0}
	u32Type     = []byte{0, 0, 0, defPrimitive, 5, 0}
	// pad follows a malformed part so that counts before it are not
	// refused first for the bytes left.
	pad = make([]byte, 16)
)

// TestMetadataHugeLengths: lengths announced anywhere in the metadata are
// refused when the bytes left cannot hold them, before anything is
// allocated; the error names where. The first input made
// go-substrate-rpc-client ask for about 200 GB.
func TestMetadataHugeLengths(t *testing.T) {
	t.Parallel()
	// huge passes the fixed bound on lengths (the input's bound): only
	// the bytes left refuse it.
	const huge = maxLen
	cases := []struct {
		name string
		raw  []byte
		want string
	}{
		{"the crasher", []byte("meta\x0ension\b\x04\x00"), "types: malformed SCALE"},
		{"types at the bound", metadataBytes(maxTypes), "types claims 1048576 elements"},
		{"types past the bound", metadataBytes(maxTypes + 1), "types has 1048577 elements, at most 1048576"},
		{"path", metadataBytes(1, 0, huge, pad), "type 0 path"},
		{"path text", metadataBytes(1, 0, 1, huge), "type 0 path"},
		{"type params", metadataBytes(1, 0, 0, huge), "type 0 params"},
		{"composite fields", metadataBytes(1, 0, 0, 0, []byte{defComposite}, huge), "type 0 def"},
		{"variants", metadataBytes(1, 0, 0, 0, []byte{defVariant}, huge), "type 0 def"},
		{"variant name", metadataBytes(1, 0, 0, 0, []byte{defVariant}, 1, huge), "type 0 variant 0"},
		{"variant fields", metadataBytes(1, 0, 0, 0, []byte{defVariant}, 1, "v", huge), "type 0 variant 0"},
		{"tuple", metadataBytes(1, 0, 0, 0, []byte{defTuple}, huge), "type 0 def"},
		{"type docs", metadataBytes(2, u32Type, 1, 0, 0, []byte{defPrimitive, 5}, huge), "type 1 docs"},
		{"pallets", metadataBytes(0, 200), "pallets claims 200 elements"},
		{"pallets past the bound", metadataBytes(0, maxPallets+1), "at most 256"},
		{"pallet name", metadataBytes(0, 1, huge, pad), "pallet 0"},
		{"storage entries", metadataBytes(0, 1, "X", []byte{1}, "X", huge), `pallet 0 ("X") storage entries`},
		{"storage default", metadataBytes(0, 1, "X", []byte{1}, "X", 1, "e", []byte{1, 0}, 0, huge), `pallet 0 ("X") storage entry 0`},
		{"hashers", metadataBytes(0, 1, "X", []byte{1}, "X", 1, "e", []byte{1, 1}, huge), `pallet 0 ("X") storage entry 0`},
		{"constants", metadataBytes(0, 1, palletX, huge), `pallet 0 ("X") constants: malformed SCALE`},
		{"constant value", metadataBytes(0, 1, palletX, 1, "c", 0, huge), `pallet 0 ("X") constant 0`},
		{"constant docs", metadataBytes(0, 1, palletX, 1, "c", 0, "", huge), `pallet 0 ("X") constant 0`},
		{"signed extensions", metadataBytes(0, 0, 0, 4, huge), "extrinsic signed extensions"},
		{"extension identifier", metadataBytes(0, 0, 0, 4, 1, huge), "extrinsic signed extension 0"},
		{"signed extensions past the bound", metadataBytes(0, 0, 0, 4, maxExtensions+1), "at most 256"},
		{"past the fixed bound", metadataBytes(1, 0, maxLen+1, pad), "path has 16777217 elements, at most 16777216"},
		{"the largest compact", metadataBytes(uint64(1<<64 - 1)), "types has"},
	}
	for _, c := range cases {
		_, err := ParseMetadata(hexMetadata(c.raw))
		if err == nil || !errors.Is(err, scale.ErrMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", c.name, err, c.want)
		}
	}
}

// TestMetadataRefused: what is not a v14 metadata, exactly, is refused,
// and the error says what.
func TestMetadataRefused(t *testing.T) {
	t.Parallel()
	good := encodeMetadata(t, syntheticMeta([][3]any{{"CheckNonce", 2, 1}}))
	if _, err := ParseMetadata(hexMetadata(good)); err != nil {
		t.Fatal(err)
	}
	dupIDs := syntheticMeta(nil, composite(2))
	callsNotEnum := syntheticMeta(nil)
	callsNotEnum.AsMetadataV14.Pallets[0].Calls.Type = typeID(2)
	noRevealWeights := syntheticMeta(nil)
	calls := &noRevealWeights.AsMetadataV14.Lookup.Types[4].Type.Def.Variant.Variants
	*calls = (*calls)[:2]
	cases := []struct {
		name string
		hex  string
		want string
	}{
		{"empty", "0x", "magic"},
		{"not hex", "0xmeta", "invalid byte"},
		{"odd hex", hexMetadata(good)[:len(hexMetadata(good))-1], "odd length"},
		{"magic", hexMetadata(append([]byte("atem"), good[4:]...)), `magic 0x6d657461 is not "meta"`},
		{"version 15", hexMetadata(append([]byte("meta\x0f"), good[5:]...)), "version 15, this client reads 14"},
		{"trailing byte", hexMetadata(append(slices.Clone(good), 0)), "1 trailing bytes"},
		{"truncated", hexMetadata(good[:len(good)-1]), "runtime type"},
		{"an id twice", hexMetadata(encodeMetadata(t, dupIDs)), "type id 2 appears twice"},
		{"type def tag 8", hexMetadata(metadataBytes(1, 0, 0, 0, []byte{8}, pad)), "type def tag 8"},
		{"primitive 15", hexMetadata(metadataBytes(1, 0, 0, 0, []byte{defPrimitive, 15}, 0)), "primitive 15"},
		{"option tag", hexMetadata(metadataBytes(0, 1, "X", []byte{2}, pad)), "option tag 2"},
		{"storage modifier", hexMetadata(metadataBytes(0, 1, "X", []byte{1}, "X", 1, "e", []byte{2}, pad)), "storage modifier 2"},
		{"storage hasher", hexMetadata(metadataBytes(0, 1, "X", []byte{1}, "X", 1, "e", []byte{1, 1}, 1, []byte{7})), "storage hasher 7"},
		{"text not UTF-8", hexMetadata(metadataBytes(0, 1, "\xff", pad)), "not UTF-8"},
		{"type id past u32", hexMetadata(metadataBytes(0, 0, uint64(1<<32), 4, 0, 0)), "type id 4294967296 exceeds u32"},
		{"non-canonical compact", hexMetadata(metadataBytes([]byte{0x01, 0x00})), "shortest form"},
		{"no pallets", hexMetadata(metadataBytes(0, 0, noExtrinsic, 0)), "no pallet Commitments with calls"},
		{"calls not an enum", hexMetadata(encodeMetadata(t, callsNotEnum)), "pallet SubtensorModule: call type 2 is not an enum"},
		{"no such call", hexMetadata(encodeMetadata(t, noRevealWeights)), "no call SubtensorModule.reveal_weights"},
		{"a pallet name twice", hexMetadata(metadataBytes(0, 2, palletX, 0, []byte{0, 1}, palletX, 0, []byte{0, 2}, noExtrinsic, 0)), `pallet name "X" or index 2 appears twice`},
		{"a pallet index twice", hexMetadata(metadataBytes(0, 2, palletX, 0, []byte{0, 1}, "Y", []byte{0, 0, 0}, 0, []byte{0, 1}, noExtrinsic, 0)), `pallet name "Y" or index 1 appears twice`},
	}
	for _, c := range cases {
		_, err := ParseMetadata(c.hex)
		if err == nil || !strings.HasPrefix(err.Error(), "runtime metadata: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", c.name, err, c.want)
		}
	}
}

// fullMeta is syntheticMeta plus every part the decoder walks over:
// paths, type parameters, docs, named fields, each kind of type, and a
// pallet with storage (plain and map), an event, constants and errors.
func fullMeta() types.Metadata {
	meta := syntheticMeta([][3]any{{"CheckNonce", 2, 1}, {"Phantom", 11, 1}})
	docs := []types.Text{"Some docs,", "two lines: ünïcödé."}
	field := types.Si1Field{HasName: true, Name: "who", Type: typeID(2), HasTypeName: true, TypeName: "T::AccountId", Docs: docs}
	def := func(d types.Si1TypeDef) types.Si1Type {
		return types.Si1Type{Path: types.Si1Path{"pallet", "Thing"}, Params: []types.Si1TypeParameter{
			{Name: "T", HasType: true, Type: typeID(2)}, {Name: "I"}}, Def: d, Docs: docs}
	}
	extra := []types.PortableTypeV14{
		{ID: typeID(10), Type: def(types.Si1TypeDef{IsComposite: true, Composite: types.Si1TypeDefComposite{Fields: []types.Si1Field{field, {Type: typeID(1)}}}})},
		{ID: typeID(11), Type: def(types.Si1TypeDef{IsComposite: true, Composite: types.Si1TypeDefComposite{Fields: []types.Si1Field{{HasName: true, Name: "marker", Type: typeID(0)}}}})},
		{ID: typeID(12), Type: def(types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: []types.Si1Variant{
			{Name: "Happened", Fields: []types.Si1Field{field}, Index: 3, Docs: docs}, {Name: "Other", Index: 200}}}})},
		{ID: typeID(13), Type: def(types.Si1TypeDef{IsSequence: true, Sequence: types.Si1TypeDefSequence{Type: typeID(2)}})},
		{ID: typeID(14), Type: def(types.Si1TypeDef{IsArray: true, Array: types.Si1TypeDefArray{Len: 32, Type: typeID(2)}})},
		{ID: typeID(15), Type: def(types.Si1TypeDef{IsTuple: true, Tuple: types.Si1TypeDefTuple{typeID(2), typeID(13)}})},
		{ID: typeID(16), Type: def(types.Si1TypeDef{IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: types.IsI256}})},
		{ID: typeID(17), Type: def(types.Si1TypeDef{IsCompact: true, Compact: types.Si1TypeDefCompact{Type: typeID(2)}})},
		{ID: typeID(18), Type: def(types.Si1TypeDef{IsBitSequence: true, BitSequence: types.Si1TypeDefBitSequence{BitStoreType: typeID(2), BitOrderType: typeID(0)}})},
		{ID: typeID(300), Type: def(types.Si1TypeDef{IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: types.IsBool}})},
	}
	m := &meta.AsMetadataV14
	m.Lookup.Types = append(m.Lookup.Types, extra...)
	storage := types.StorageMetadataV14{Prefix: "Things", Items: []types.StorageEntryMetadataV14{
		{Name: "Count", Modifier: types.StorageFunctionModifierV0{IsDefault: true}, Type: types.StorageEntryTypeV14{IsPlainType: true, AsPlainType: typeID(2)}, Fallback: types.Bytes{0, 0, 0, 0}, Documentation: docs},
		{Name: "Of", Modifier: types.StorageFunctionModifierV0{IsOptional: true}, Type: types.StorageEntryTypeV14{IsMap: true, AsMap: types.MapTypeV14{
			Hashers: []types.StorageHasherV10{{IsBlake2_128Concat: true}, {IsIdentity: true}}, Key: typeID(15), Value: typeID(10)}}},
	}}
	m.Pallets = append([]types.PalletMetadataV14{{
		Name: "Things", HasStorage: true, Storage: storage, HasEvents: true, Events: types.EventMetadataV14{Type: typeID(12)},
		Constants: []types.ConstantMetadataV14{{Name: "Max", Type: typeID(2), Value: types.Bytes{1, 0, 0, 0}, Docs: docs}, {Name: "Empty", Type: typeID(1)}},
		HasErrors: true, Errors: types.ErrorMetadataV14{Type: typeID(12)}, Index: 9,
	}}, m.Pallets...)
	m.Extrinsic.Type = typeID(300)
	m.Type = typeID(18)
	return meta
}

// TestDecodeMetadataV14Full: every part of metadata the library encodes
// decodes to what the library decodes.
func TestDecodeMetadataV14Full(t *testing.T) {
	t.Parallel()
	raw := encodeMetadata(t, fullMeta())
	m, _ := decodeAlike(t, raw)
	if len(m.types.entries) != 15 || len(m.pallets) != 3 || m.runtimeTyp != 18 || m.extrinsic.typ != 300 {
		t.Fatalf("%d types, %d pallets, runtime type %d, extrinsic %+v", len(m.types.entries), len(m.pallets), m.runtimeTyp, m.extrinsic)
	}
	rt, err := ParseMetadata(hexMetadata(raw))
	if err != nil {
		t.Fatal(err)
	}
	if rt.Calls[callCommitWeights] != (CallIndex{7, 96}) || !slices.Equal(rt.Extensions, []string{"CheckNonce", "Phantom"}) {
		t.Fatalf("runtime %+v", rt)
	}
}

// decodeAlike decodes raw with decodeMetadataV14 and checks that the
// library decodes it alike.
func decodeAlike(t *testing.T, raw []byte) (*metadataV14, *types.Metadata) {
	t.Helper()
	m, err := decodeMetadataV14(raw)
	if err != nil {
		t.Fatal(err)
	}
	var lib types.Metadata
	if err := codec.Decode(raw, &lib); err != nil {
		t.Fatal(err)
	}
	if err := sameAsLibrary(m, &lib.AsMetadataV14); err != nil {
		t.Fatal(err)
	}
	return m, &lib
}
