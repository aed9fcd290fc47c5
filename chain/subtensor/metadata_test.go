package subtensor

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"
)

var typeID = types.NewSi1LookupTypeIDFromUInt

// syntheticMeta is a v14 metadata with the two pallets and calls this
// package uses (at spec 425's indices) and the given signed extensions,
// each (identifier, type id, additional type id). Types: 0 an empty
// composite (PhantomData), 1 the empty tuple, 2 u32, 3 and 4 the call
// enums, then extra. It is built and encoded with go-substrate-rpc-client,
// independently of the decoder under test.
func syntheticMeta(exts [][3]any, extra ...types.PortableTypeV14) types.Metadata {
	variant := func(name string, index uint8) types.Si1Variant {
		return types.Si1Variant{Name: types.Text(name), Index: types.U8(index)}
	}
	lookup := []types.PortableTypeV14{
		{ID: typeID(0), Type: types.Si1Type{Def: types.Si1TypeDef{IsComposite: true}}},
		{ID: typeID(1), Type: types.Si1Type{Def: types.Si1TypeDef{IsTuple: true}}},
		{ID: typeID(2), Type: types.Si1Type{Def: types.Si1TypeDef{IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: types.IsU32}}}},
		{ID: typeID(3), Type: types.Si1Type{Def: types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: []types.Si1Variant{variant("set_commitment", 0)}}}}},
		{ID: typeID(4), Type: types.Si1Type{Def: types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: []types.Si1Variant{
			variant("set_weights", 0), variant("commit_weights", 96), variant("reveal_weights", 97)}}}}},
	}
	var signed []types.SignedExtensionMetadataV14
	for _, e := range exts {
		signed = append(signed, types.SignedExtensionMetadataV14{Identifier: types.Text(e[0].(string)), Type: typeID(uint64(e[1].(int))), AdditionalSigned: typeID(uint64(e[2].(int)))})
	}
	return types.Metadata{MagicNumber: 0x6174656d, Version: 14, AsMetadataV14: types.MetadataV14{
		Lookup: types.PortableRegistryV14{Types: append(lookup, extra...)},
		Pallets: []types.PalletMetadataV14{
			{Name: "SubtensorModule", HasCalls: true, Calls: types.FunctionMetadataV14{Type: typeID(4)}, Index: 7},
			{Name: "Commitments", HasCalls: true, Calls: types.FunctionMetadataV14{Type: typeID(3)}, Index: 18},
		},
		Extrinsic: types.ExtrinsicV14{Version: 4, SignedExtensions: signed},
		Type:      typeID(0),
	}}
}

// encodeMetadata encodes meta with go-substrate-rpc-client.
func encodeMetadata(t testing.TB, meta types.Metadata) []byte {
	t.Helper()
	b, err := codec.Encode(meta)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexMetadata(b []byte) string { return "0x" + hex.EncodeToString(b) }

// syntheticMetadata is syntheticMeta's hex, as state_getMetadata returns it.
func syntheticMetadata(t testing.TB, exts [][3]any, extra ...types.PortableTypeV14) string {
	t.Helper()
	return hexMetadata(encodeMetadata(t, syntheticMeta(exts, extra...)))
}

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	rt, err := ParseMetadata(syntheticMetadata(t, [][3]any{
		{"CheckSpecVersion", 1, 2}, {"CheckNonce", 2, 1}, {"SomeNewEmptyExtension", 0, 1},
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]CallIndex{callSetCommitment: {18, 0}, callSetWeights: {7, 0}, callCommitWeights: {7, 96}, callRevealWeights: {7, 97}}
	for name, idx := range want {
		if rt.Calls[name] != idx {
			t.Errorf("%s: %+v want %+v", name, rt.Calls[name], idx)
		}
	}
	if strings.Join(rt.Extensions, ",") != "CheckSpecVersion,CheckNonce,SomeNewEmptyExtension" || len(rt.exts) != 3 {
		t.Fatalf("extensions %v", rt.Extensions)
	}
	// An unknown extension that carries data cannot be signed for.
	if _, err := ParseMetadata(syntheticMetadata(t, [][3]any{{"SomeNewDataExtension", 2, 1}})); err == nil || !strings.Contains(err.Error(), "SomeNewDataExtension") {
		t.Fatalf("unknown data extension: %v", err)
	}
	if _, err := ParseMetadata("0x00"); err == nil {
		t.Fatal("garbage metadata accepted")
	}
}

// TestParseMetadataTypeOrder: types are found by id, whatever their order
// in the registry.
func TestParseMetadataTypeOrder(t *testing.T) {
	t.Parallel()
	meta := syntheticMeta([][3]any{{"CheckNonce", 2, 1}, {"SomeNewEmptyExtension", 0, 1}})
	slices.Reverse(meta.AsMetadataV14.Lookup.Types)
	rt, err := ParseMetadata(hexMetadata(encodeMetadata(t, meta)))
	if err != nil {
		t.Fatal(err)
	}
	if rt.Calls[callRevealWeights] != (CallIndex{7, 97}) || len(rt.Extensions) != 2 {
		t.Fatalf("reversed registry: %+v", rt)
	}
}

func composite(id uint64, fields ...uint64) types.PortableTypeV14 {
	var fs []types.Si1Field
	for _, f := range fields {
		fs = append(fs, types.Si1Field{Type: typeID(f)})
	}
	return types.PortableTypeV14{ID: typeID(id), Type: types.Si1Type{Def: types.Si1TypeDef{
		IsComposite: true, Composite: types.Si1TypeDefComposite{Fields: fs}}}}
}

// TestEmptyTypeCheck: an unknown extension is signed for only if its types
// are empty, nested at most maxEmptyDepth deep and not containing
// themselves; a wide tree of empty types is decided in time linear in its
// size (each type once), not in its number of paths.
func TestEmptyTypeCheck(t *testing.T) {
	t.Parallel()
	// 10 … 18: type 10+d has 64 fields of type 11+d; 18 has none. There
	// are 64^8 paths from 10 to 18.
	var wide []types.PortableTypeV14
	for d := uint64(0); d < 8; d++ {
		fields := make([]uint64, 64)
		for i := range fields {
			fields[i] = 11 + d
		}
		wide = append(wide, composite(10+d, fields...))
	}
	wide = append(wide, composite(18))
	// 100 … 100+n: a chain of one-field composites, n+1 levels.
	chain := func(n uint64) []types.PortableTypeV14 {
		var ts []types.PortableTypeV14
		for i := uint64(0); i < n; i++ {
			ts = append(ts, composite(100+i, 101+i))
		}
		return append(ts, composite(100+n))
	}
	u32Inside := []types.PortableTypeV14{composite(10, 0, 1), composite(11, 10, 2)}
	cases := []struct {
		name  string
		types []types.PortableTypeV14
		typ   int
		empty bool
	}{
		{"wide tree of empties", wide, 10, true},
		{"chain at the depth bound", chain(maxEmptyDepth), 100, true},
		{"chain past the depth bound", chain(maxEmptyDepth + 1), 100, false},
		{"contains itself", []types.PortableTypeV14{composite(10, 0, 10)}, 10, false},
		{"unknown type id", nil, 99, false},
		{"u32 one level down", u32Inside, 11, false},
		{"empties only", u32Inside, 10, true},
		{"a primitive", nil, 2, false},
	}
	for _, c := range cases {
		_, err := ParseMetadata(syntheticMetadata(t, [][3]any{{"CheckNonce", 2, 1}, {"Unknown", c.typ, 1}}, c.types...))
		if c.empty && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.empty && (err == nil || !strings.Contains(err.Error(), `"Unknown"`)) {
			t.Errorf("%s: %v, want the extension refused", c.name, err)
		}
	}
}
