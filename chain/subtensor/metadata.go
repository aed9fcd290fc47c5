package subtensor

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Runtime is what signing needs from the node's runtime: call indices and
// the signed extensions in order, read from its metadata (v14), and the
// versions the extensions sign; and the metadata's types, which decode the
// events that say whether a write was applied.
type Runtime struct {
	SpecVersion        uint32
	TransactionVersion uint32
	Extensions         []string
	Calls              map[string]CallIndex
	// Storage tells which of the storage items this package looks for
	// in the metadata ("Prefix.Item", probedStorage) the runtime has.
	Storage map[string]bool
	// exts are the encoders of Extensions, in order.
	exts []extension
	// meta is the decoded metadata, whose types decode the block's events
	// (events.go).
	meta *metadataV14
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
	calls, err := m.callIndices(callSetCommitment, callSetWeights, callCommitWeights, callRevealWeights)
	if err != nil {
		return Runtime{}, fmt.Errorf("runtime metadata: %w", err)
	}
	rt := Runtime{Calls: calls, Storage: m.storageItems(probedStorage...), meta: m}
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

// callIndices finds each "Pallet.call": the pallet's index and the
// call's variant index in the pallet's call enum, which is decoded once
// per pallet.
func (m *metadataV14) callIndices(names ...string) (map[string]CallIndex, error) {
	enums := map[string]map[string]uint8{}
	out := map[string]CallIndex{}
	for _, name := range names {
		pallet, call, _ := strings.Cut(name, ".")
		i := slices.IndexFunc(m.pallets, func(p palletV14) bool { return p.name == pallet })
		if i < 0 || !m.pallets[i].hasCalls {
			return nil, fmt.Errorf("no pallet %s with calls", pallet)
		}
		enum, ok := enums[pallet]
		if !ok {
			def, ok := m.types.lookup(m.pallets[i].calls)
			if !ok || def.kind != defVariant {
				return nil, fmt.Errorf("pallet %s: call type %d is not an enum", pallet, m.pallets[i].calls)
			}
			enum = map[string]uint8{}
			for _, v := range def.variants {
				if _, dup := enum[v.name]; !dup {
					enum[v.name] = v.index
				}
			}
			enums[pallet] = enum
		}
		index, ok := enum[call]
		if !ok {
			return nil, fmt.Errorf("no call %s", name)
		}
		out[name] = CallIndex{Pallet: m.pallets[i].index, Call: index}
	}
	return out, nil
}

// probedStorage are the storage items whose presence changes what this
// package reads: subtensor's epoch counter since runtime 423 (epochs.go).
var probedStorage = []string{itemLastEpochBlock, itemSubnetEpochIndex}

// storageItems reports, for each "Prefix.Item", whether a pallet with
// that storage prefix declares the item.
func (m *metadataV14) storageItems(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, name := range names {
		prefix, item, _ := strings.Cut(name, ".")
		out[name] = slices.ContainsFunc(m.pallets, func(p palletV14) bool {
			return p.prefix == prefix && slices.Contains(p.storage, item)
		})
	}
	return out
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
