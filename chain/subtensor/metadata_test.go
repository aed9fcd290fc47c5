package subtensor

import (
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"
)

// syntheticMetadata is a v14 metadata with the two pallets and calls this
// package uses (at spec 425's indices) and the given signed extensions,
// each (identifier, type id, additional type id). Types: 0 an empty
// composite (PhantomData), 1 the empty tuple, 2 u32, 3 and 4 the call
// enums.
func syntheticMetadata(t *testing.T, exts [][3]any) string {
	t.Helper()
	id := types.NewSi1LookupTypeIDFromUInt
	variant := func(name string, index uint8) types.Si1Variant {
		return types.Si1Variant{Name: types.Text(name), Index: types.U8(index)}
	}
	lookup := []types.PortableTypeV14{
		{ID: id(0), Type: types.Si1Type{Def: types.Si1TypeDef{IsComposite: true}}},
		{ID: id(1), Type: types.Si1Type{Def: types.Si1TypeDef{IsTuple: true}}},
		{ID: id(2), Type: types.Si1Type{Def: types.Si1TypeDef{IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: types.IsU32}}}},
		{ID: id(3), Type: types.Si1Type{Def: types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: []types.Si1Variant{variant("set_commitment", 0)}}}}},
		{ID: id(4), Type: types.Si1Type{Def: types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: []types.Si1Variant{
			variant("set_weights", 0), variant("commit_weights", 96), variant("reveal_weights", 97)}}}}},
	}
	var signed []types.SignedExtensionMetadataV14
	for _, e := range exts {
		signed = append(signed, types.SignedExtensionMetadataV14{Identifier: types.Text(e[0].(string)), Type: id(uint64(e[1].(int))), AdditionalSigned: id(uint64(e[2].(int)))})
	}
	meta := types.Metadata{MagicNumber: 0x6174656d, Version: 14, AsMetadataV14: types.MetadataV14{
		Lookup: types.PortableRegistryV14{Types: lookup},
		Pallets: []types.PalletMetadataV14{
			{Name: "SubtensorModule", HasCalls: true, Calls: types.FunctionMetadataV14{Type: id(4)}, Index: 7},
			{Name: "Commitments", HasCalls: true, Calls: types.FunctionMetadataV14{Type: id(3)}, Index: 18},
		},
		Extrinsic: types.ExtrinsicV14{Version: 4, SignedExtensions: signed},
		Type:      id(0),
	}}
	h, err := codec.EncodeToHex(meta)
	if err != nil {
		t.Fatal(err)
	}
	return h
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
