package subtensor

import (
	"runtime"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
)

// TestMetadataAllocation: ParseMetadata allocates at most 8 times the
// metadata's bytes (4 times its hex) on the shapes that make it keep the
// most: a call enum of many nameless variants (24 bytes kept for each 4),
// a signed extension whose type is a wide tuple (4 bytes for each 1),
// many small types (8 bytes of index for each 6), many empty docs, many
// nameless storage entries (16 bytes of name for each 6). Not
// parallel: it reads the process's allocation counter.
func TestMetadataAllocation(t *testing.T) {
	const n = 200000
	manyVariants := syntheticMeta([][3]any{{"CheckNonce", 2, 1}})
	calls := &manyVariants.AsMetadataV14.Lookup.Types[4].Type.Def.Variant.Variants
	*calls = append(make([]types.Si1Variant, n), *calls...)

	wide := types.PortableTypeV14{ID: typeID(10), Type: types.Si1Type{Def: types.Si1TypeDef{IsTuple: true, Tuple: make(types.Si1TypeDefTuple, n)}}}
	for i := range wide.Type.Def.Tuple {
		wide.Type.Def.Tuple[i] = typeID(1)
	}
	wideTuple := syntheticMeta([][3]any{{"CheckNonce", 2, 1}, {"Wide", 10, 1}}, wide)

	var small []types.PortableTypeV14
	for i := range n / 4 {
		small = append(small, types.PortableTypeV14{ID: typeID(uint64(10 + i)), Type: types.Si1Type{Def: types.Si1TypeDef{IsTuple: true}}})
	}
	manyTypes := syntheticMeta([][3]any{{"CheckNonce", 2, 1}}, small...)

	manyDocs := syntheticMeta(nil, types.PortableTypeV14{ID: typeID(10), Type: types.Si1Type{Def: types.Si1TypeDef{IsTuple: true}, Docs: make([]types.Text, n)}})

	manyItems := syntheticMeta([][3]any{{"CheckNonce", 2, 1}})
	items := make([]types.StorageEntryMetadataV14, n/2)
	for i := range items {
		items[i] = types.StorageEntryMetadataV14{Modifier: types.StorageFunctionModifierV0{IsDefault: true}, Type: types.StorageEntryTypeV14{IsPlainType: true, AsPlainType: typeID(2)}}
	}
	manyItems.AsMetadataV14.Pallets[0].HasStorage = true
	manyItems.AsMetadataV14.Pallets[0].Storage = types.StorageMetadataV14{Prefix: "SubtensorModule", Items: items}

	for _, c := range []struct {
		name string
		meta types.Metadata
	}{{"many variants", manyVariants}, {"wide tuple", wideTuple}, {"many types", manyTypes}, {"many docs", manyDocs}, {"many storage entries", manyItems}} {
		raw := encodeMetadata(t, c.meta)
		h := hexMetadata(raw)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ParseMetadata(h)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes, allocated %d", c.name, len(raw), got)
		if got > uint64(8*len(raw)+1<<16) {
			t.Errorf("%s: %d bytes of metadata allocated %d", c.name, len(raw), got)
		}
	}
}
