package subtensor

import (
	"encoding/hex"
	"fmt"
	"strings"
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
// are not empty. The metadata is decoded by this package (metadata_v14.go),
// bounded by its length whatever it announces: a broken or hostile node
// gets an error, not a validator out of memory.
func ParseMetadata(hexMeta string) (Runtime, error) {
	s := strings.TrimPrefix(hexMeta, "0x")
	if len(s) > 2*maxMetadata {
		return Runtime{}, fmt.Errorf("runtime metadata: %d hex digits, at most %d allowed", len(s), 2*maxMetadata)
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return Runtime{}, fmt.Errorf("runtime metadata: %w", err)
	}
	m, err := decodeMetadataV14(raw)
	if err != nil {
		return Runtime{}, fmt.Errorf("runtime metadata: %w", err)
	}
	rt := Runtime{Calls: map[string]CallIndex{}}
	for _, name := range []string{callSetCommitment, callSetWeights, callCommitWeights, callRevealWeights} {
		idx, ok := m.callIndex(name)
		if !ok {
			return Runtime{}, fmt.Errorf("runtime metadata: no call %s", name)
		}
		rt.Calls[name] = idx
	}
	empty := emptyTypes{reg: m.types, known: map[uint32]emptiness{}}
	for _, ext := range m.extrinsic.extensions {
		enc, ok := extensions[ext.identifier]
		if !ok {
			if !empty.is(ext.typ, 0) || !empty.is(ext.additional, 0) {
				return Runtime{}, fmt.Errorf("runtime has signed extension %q, which carries data this client does not know how to fill in", ext.identifier)
			}
			enc = extension{none, none}
		}
		rt.Extensions = append(rt.Extensions, ext.identifier)
		rt.exts = append(rt.exts, enc)
	}
	return rt, nil
}

// callIndex finds "Pallet.call": the pallet's index and the call's variant
// index in the pallet's call enum.
func (m *metadataV14) callIndex(name string) (CallIndex, bool) {
	pallet, call, _ := strings.Cut(name, ".")
	for _, p := range m.pallets {
		if !p.hasCalls || p.name != pallet {
			continue
		}
		def, ok := m.types.lookup(p.calls)
		if !ok || def.kind != defVariant {
			continue
		}
		for _, v := range def.variants {
			if v.name == call {
				return CallIndex{Pallet: p.index, Call: v.index}, true
			}
		}
	}
	return CallIndex{}, false
}

// maxEmptyDepth bounds the nesting the empty-type check follows: the
// empty types signed extensions use (PhantomData, ()) are one level deep.
const maxEmptyDepth = 16

type emptiness uint8

const (
	checking emptiness = iota + 1
	isEmpty
	notEmpty
)

// emptyTypes decides whether types encode to no bytes: a composite or
// tuple of empty types. Each type is decided once, so a registry of many
// types nested in each other costs its size, not the number of paths
// through it.
type emptyTypes struct {
	reg   typeRegistry
	known map[uint32]emptiness
}

// is reports whether type id is empty. A type that contains itself, one
// nested deeper than maxEmptyDepth and an unknown id are not: any of these
// makes the whole check false, so a memoized answer never depends on the
// depth it was reached at.
func (e *emptyTypes) is(id uint32, depth int) bool {
	switch e.known[id] {
	case isEmpty:
		return true
	case checking, notEmpty:
		return false
	}
	if depth > maxEmptyDepth {
		return false
	}
	e.known[id] = checking
	def, ok := e.reg.lookup(id)
	empty := ok && (def.kind == defComposite || def.kind == defTuple)
	for _, f := range def.fields {
		if !empty {
			break
		}
		empty = e.is(f, depth+1)
	}
	if empty {
		e.known[id] = isEmpty
	} else {
		e.known[id] = notEmpty
	}
	return empty
}
