package subtensor

import (
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"
)

// FuzzParseMetadata: no input panics; what decodeMetadataV14 accepts,
// go-substrate-rpc-client decodes to the same pallets, types and
// extensions, and ParseMetadata's Runtime is the one the previous,
// library-based ParseMetadata computed from that decoding
// (referenceRuntime). The library is safe to run here: every length in
// accepted input has been checked against the bytes that hold it.
func FuzzParseMetadata(f *testing.F) {
	for _, exts := range [][][3]any{
		nil,
		{{"CheckSpecVersion", 1, 2}, {"CheckNonce", 2, 1}},
		{{"CheckNonce", 2, 1}, {"SomeNewEmptyExtension", 0, 1}, {"SomeNewDataExtension", 2, 1}},
	} {
		f.Add(encodeMetadata(f, syntheticMeta(exts)))
	}
	f.Add(encodeMetadata(f, syntheticMeta([][3]any{{"Nested", 10, 1}}, composite(10, 0, 1, 11), composite(11, 1))))
	f.Add(encodeMetadata(f, fullMeta()))
	f.Add([]byte("meta\x0ension\b\x04\x00"))
	f.Add([]byte("meta\x0e"))
	f.Fuzz(checkMetadata)
}

// checkMetadata is FuzzParseMetadata's property on one input.
func checkMetadata(t *testing.T, raw []byte) {
	rt, err := ParseMetadata("0x" + hex.EncodeToString(raw))
	m, derr := decodeMetadataV14(raw)
	if derr != nil {
		if err == nil {
			t.Fatalf("ParseMetadata accepted what the decoder refuses: %v", derr)
		}
		return
	}
	var lib types.Metadata
	if err := codec.Decode(raw, &lib); err != nil {
		t.Fatalf("accepted metadata the library refuses: %v", err)
	}
	if err := sameAsLibrary(m, &lib.AsMetadataV14); err != nil {
		t.Fatal(err)
	}
	want, werr := referenceRuntime(&lib.AsMetadataV14)
	if errors.Is(werr, errTooManyPaths) {
		return
	}
	if (err == nil) != (werr == nil) {
		t.Fatalf("ParseMetadata: %v, reference: %v", err, werr)
	}
	if err == nil && (!maps.Equal(rt.Calls, want.Calls) || !slices.Equal(rt.Extensions, want.Extensions) || !maps.Equal(rt.Storage, want.Storage)) {
		t.Fatalf("runtime %+v, reference %+v", rt, want)
	}
}

var errTooManyPaths = errors.New("reference: too many paths to follow")

// referenceRuntime is ParseMetadata as it was on the library's decoding:
// calls by the library's FindCallIndex, the storage items probed found
// among the library's pallets by prefix and name, an unknown extension
// accepted if its types are composites or tuples of such, at most 16 deep,
// followed along every path (so it gives up on wide trees).
func referenceRuntime(m *types.MetadataV14) (Runtime, error) {
	rt := Runtime{Calls: map[string]CallIndex{}, Storage: map[string]bool{}}
	for _, name := range probedStorage {
		prefix, item, _ := strings.Cut(name, ".")
		found := false
		for _, p := range m.Pallets {
			for _, e := range p.Storage.Items {
				found = found || p.HasStorage && string(p.Storage.Prefix) == prefix && string(e.Name) == item
			}
		}
		rt.Storage[name] = found
	}
	for _, name := range []string{callSetCommitment, callSetWeights, callCommitWeights, callRevealWeights} {
		idx, err := m.FindCallIndex(name)
		if err != nil {
			return Runtime{}, err
		}
		rt.Calls[name] = CallIndex{Pallet: idx.SectionIndex, Call: idx.MethodIndex}
	}
	lookup := map[int64]types.Si1Type{}
	for _, t := range m.Lookup.Types {
		lookup[t.ID.Int64()] = t.Type
	}
	budget := 100000
	var empty func(id int64, depth int) bool
	empty = func(id int64, depth int) bool {
		if budget--; budget < 0 {
			return false
		}
		t, ok := lookup[id]
		if !ok || depth > 16 {
			return false
		}
		var fields []int64
		switch {
		case t.Def.IsComposite:
			for _, f := range t.Def.Composite.Fields {
				fields = append(fields, f.Type.Int64())
			}
		case t.Def.IsTuple:
			for _, f := range t.Def.Tuple {
				fields = append(fields, f.Int64())
			}
		default:
			return false
		}
		for _, f := range fields {
			if !empty(f, depth+1) {
				return false
			}
		}
		return true
	}
	for _, ext := range m.Extrinsic.SignedExtensions {
		name := string(ext.Identifier)
		if _, ok := extensions[name]; !ok {
			e := empty(ext.Type.Int64(), 0) && empty(ext.AdditionalSigned.Int64(), 0)
			if budget < 0 {
				return Runtime{}, errTooManyPaths
			}
			if !e {
				return Runtime{}, errors.New("extension carries data")
			}
		}
		rt.Extensions = append(rt.Extensions, name)
	}
	return rt, nil
}
