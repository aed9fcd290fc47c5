package subtensor

import (
	"fmt"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"
)

// Runtime is what signing needs from the node's runtime: call indices and
// the signed extensions in order, read from its metadata (v14), and the
// versions the extensions sign.
type Runtime struct {
	SpecVersion        uint32
	TransactionVersion uint32
	Extensions         []string
	Calls              map[string]CallIndex
	// exts are the encoders of Extensions, in order.
	exts []extension
}

// ParseMetadata reads the runtime metadata (state_getMetadata's hex) and
// finds the calls this package makes and the signed extensions. It fails on
// a signed extension it cannot fill in: one it does not know whose types
// are not empty.
func ParseMetadata(hexMeta string) (_ Runtime, err error) {
	var meta types.Metadata
	if err := decodeMetadata(hexMeta, &meta); err != nil {
		return Runtime{}, fmt.Errorf("runtime metadata: %w", err)
	}
	if meta.Version != 14 {
		return Runtime{}, fmt.Errorf("runtime metadata version %d, this client reads 14", meta.Version)
	}
	m := &meta.AsMetadataV14
	rt := Runtime{Calls: map[string]CallIndex{}}
	for _, name := range []string{callSetCommitment, callSetWeights, callCommitWeights, callRevealWeights} {
		idx, err := m.FindCallIndex(name)
		if err != nil {
			return Runtime{}, fmt.Errorf("runtime metadata: %s: %w", name, err)
		}
		rt.Calls[name] = CallIndex{Pallet: idx.SectionIndex, Call: idx.MethodIndex}
	}
	lookup := map[int64]types.Si1Type{}
	for _, t := range m.Lookup.Types {
		lookup[t.ID.Int64()] = t.Type
	}
	for _, ext := range m.Extrinsic.SignedExtensions {
		name := string(ext.Identifier)
		enc, ok := extensions[name]
		if !ok {
			if !emptyType(lookup, ext.Type.Int64(), 0) || !emptyType(lookup, ext.AdditionalSigned.Int64(), 0) {
				return Runtime{}, fmt.Errorf("runtime has signed extension %q, which carries data this client does not know how to fill in", name)
			}
			enc = extension{none, none}
		}
		rt.Extensions = append(rt.Extensions, name)
		rt.exts = append(rt.exts, enc)
	}
	return rt, nil
}

// emptyType reports whether a type encodes to no bytes: a composite or
// tuple of empty types (PhantomData, ()).
func emptyType(lookup map[int64]types.Si1Type, id int64, depth int) bool {
	t, ok := lookup[id]
	if !ok || depth > 16 {
		return false
	}
	switch {
	case t.Def.IsComposite:
		for _, f := range t.Def.Composite.Fields {
			if !emptyType(lookup, f.Type.Int64(), depth+1) {
				return false
			}
		}
		return true
	case t.Def.IsTuple:
		for _, f := range t.Def.Tuple {
			if !emptyType(lookup, f.Int64(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// decodeMetadata decodes with the SCALE library, which dereferences nil on
// some malformed input: that is an error here, not a crash. (It also
// allocates whatever length a vector announces, so metadata is only read
// from the node the validator was configured with; spec/limits.md.)
func decodeMetadata(hexMeta string, meta *types.Metadata) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed SCALE: %v", r)
		}
	}()
	return codec.DecodeFromHex(hexMeta, meta)
}
