package subtensor

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/chain/scale"
)

// Runtime metadata v14, as frame-metadata 14 and scale-info 2 encode it
// (state_getMetadata's bytes):
//
//	u32 "meta" (0x6174656d LE) || u8 14 || types Vec<PortableType>
//	|| pallets Vec<Pallet> || extrinsic || compact runtime type id
//	Pallet = name Text || Option<storage> || Option<calls type>
//	         || Option<event type> || constants Vec<Constant>
//	         || Option<error type> || u8 index
//	extrinsic = compact type || u8 version
//	            || Vec<(identifier Text, compact type, compact additional)>
//
// The decoder walks every byte (a field after a skipped part can only be
// found by reading the part) but keeps only what this package uses: the
// pallets' names, indices, storage entry names and call, event and error
// types, the signed extensions, and an index from type id to the type's
// offset, from which a type is decoded again when it is looked up. Every
// length is checked against the bytes left before anything is allocated
// (scale.Decoder.Len with the smallest encoding of an element), so N bytes
// of metadata allocate at most a small multiple of N, whatever lengths
// they announce.

const (
	metadataMagic   = 0x6174656d // "meta"
	metadataVersion = 14
	// maxMetadata bounds the metadata's bytes. Substrate's node's v14 and
	// subtensor's devnet's v16 are about 300 KB.
	maxMetadata = 16 << 20
	// maxTypes bounds the type registry (subtensor's devnet: 712 types).
	maxTypes = 1 << 20
	// maxPallets: pallet indices are u8 and distinct.
	maxPallets = 256
	// maxExtensions bounds the signed extensions (runtimes have about a
	// dozen).
	maxExtensions = 256
	// maxLen bounds every other vector and text; the bytes left bound
	// them more tightly.
	maxLen = maxMetadata
)

// The smallest encodings, in bytes, of the elements of the vectors: a
// count of them can be no larger than the bytes left divided by these.
const (
	minText         = 1 // empty: its length
	minTypeParam    = 2 // name, None
	minField        = 4 // None, type, None, no docs
	minVariant      = 4 // name, no fields, index, no docs
	minPortableType = 6 // id, path, params, def tag and its shortest body, docs
	minPallet       = 7 // name, three Nones, no constants, None, index
	minStorageEntry = 6 // name, modifier, plain tag and type, default, docs
	minConstant     = 4 // name, type, value, docs
	minExtension    = 3 // identifier, type, additional
	minTypeID       = 1 // compact
	minByte         = 1 // hashers, Vec<u8>
)

// metadataV14 is the part of the metadata this package uses.
type metadataV14 struct {
	types      typeRegistry
	pallets    []palletV14
	extrinsic  extrinsicV14
	runtimeTyp uint32
}

// palletV14 is a pallet without its storage types and constants.
type palletV14 struct {
	name string
	// prefix is the storage prefix (the pallet's name in
	// construct_runtime, hashed into its storage keys) and storage names
	// the storage entries, in the metadata's order: which items the
	// runtime has, for a pallet with storage.
	prefix   string
	storage  []string
	hasCalls bool
	calls    uint32 // the type id of the pallet's call enum, if hasCalls
	// The type ids of the pallet's event and error enums, if it has them
	// (events.go reads them).
	hasEvents, hasErrors bool
	events, errors       uint32
	index                uint8
}

type extrinsicV14 struct {
	typ        uint32
	version    uint8
	extensions []signedExtensionV14
}

type signedExtensionV14 struct {
	identifier      string
	typ, additional uint32
}

// decodeMetadataV14 decodes raw, which must be exactly one v14 metadata.
// Its errors wrap scale.ErrMalformed and name the part being read.
func decodeMetadataV14(raw []byte) (*metadataV14, error) {
	if len(raw) > maxMetadata {
		return nil, fmt.Errorf("%d bytes, at most %d allowed", len(raw), maxMetadata)
	}
	w := &walker{d: scale.NewDecoder(raw)}
	w.item("magic", -1)
	if magic := w.d.U32(); w.d.Err() == nil && magic != metadataMagic {
		w.d.Fail("magic 0x%08x is not \"meta\"", magic)
	}
	w.item("version", -1)
	if v := w.d.U8(); w.d.Err() == nil && v != metadataVersion {
		return nil, fmt.Errorf("version %d, this client reads %d", v, metadataVersion)
	}
	m := &metadataV14{}
	m.types = w.registry(raw)
	w.item("pallets", -1)
	n := w.d.Len(maxPallets, minPallet, "pallets")
	// construct_runtime makes pallet names and indices distinct; the call
	// indices depend on it.
	names := make(map[string]bool, n)
	var indices [256]bool
	for i := 0; i < n && w.d.Err() == nil; i++ {
		p := w.pallet(i)
		if names[p.name] || indices[p.index] {
			w.d.Fail("pallet name %q or index %d appears twice", p.name, p.index)
		}
		names[p.name], indices[p.index] = true, true
		m.pallets = append(m.pallets, p)
	}
	m.extrinsic = w.extrinsic()
	w.item("runtime type", -1)
	m.runtimeTyp = w.typeID()
	if err := w.d.Finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", w.at, err)
	}
	return m, nil
}

func (w *walker) pallet(i int) palletV14 {
	w.item("pallet", i)
	var p palletV14
	p.name = string(w.text())
	w.at.name = p.name
	if w.part("storage"); w.option() {
		w.part("storage prefix")
		p.prefix = string(w.text())
		w.part("storage entries")
		n := w.d.Len(maxLen, minStorageEntry, "storage entries")
		p.storage = make([]string, 0, n)
		for j := 0; j < n && w.d.Err() == nil; j++ {
			w.sub("storage entry", j)
			p.storage = append(p.storage, w.storageEntry())
		}
	}
	if w.part("calls"); w.option() {
		p.hasCalls, p.calls = true, w.typeID()
	}
	if w.part("event"); w.option() {
		p.hasEvents, p.events = true, w.typeID()
	}
	w.part("constants")
	n := w.d.Len(maxLen, minConstant, "constants")
	for j := 0; j < n && w.d.Err() == nil; j++ {
		w.sub("constant", j)
		w.text()
		w.typeID()
		w.bytes()
		w.docs()
	}
	if w.part("error"); w.option() {
		p.hasErrors, p.errors = true, w.typeID()
	}
	w.part("index")
	p.index = w.d.U8()
	return p
}

// storageEntry walks name, modifier, type, default and docs, and returns
// the name.
func (w *walker) storageEntry() string {
	name := string(w.text())
	if mod := w.d.U8(); mod > 1 { // Optional, Default
		w.d.Fail("storage modifier %d", mod)
	}
	switch tag := w.d.U8(); tag {
	case 0: // Plain(type)
		w.typeID()
	case 1: // Map{hashers, key, value}
		n := w.d.Len(maxLen, minByte, "hashers")
		for k := 0; k < n && w.d.Err() == nil; k++ {
			if h := w.d.U8(); h > 6 { // Blake2_128 … Identity
				w.d.Fail("storage hasher %d", h)
			}
		}
		w.typeID()
		w.typeID()
	default:
		w.d.Fail("storage entry type tag %d", tag)
	}
	w.bytes()
	w.docs()
	return name
}

func (w *walker) extrinsic() extrinsicV14 {
	w.item("extrinsic", -1)
	var x extrinsicV14
	x.typ = w.typeID()
	x.version = w.d.U8()
	w.part("signed extensions")
	n := w.d.Len(maxExtensions, minExtension, "signed extensions")
	for i := 0; i < n && w.d.Err() == nil; i++ {
		w.sub("signed extension", i)
		x.extensions = append(x.extensions, signedExtensionV14{
			identifier: string(w.text()), typ: w.typeID(), additional: w.typeID(),
		})
	}
	return x
}

// walker reads metadata with a scale.Decoder and remembers which part it
// was reading when the decoder's first error happened, to name it.
type walker struct {
	d  *scale.Decoder
	at location
	// shape: a type looked up keeps its variants' field types.
	shape bool
}

// location is a part of the metadata: "pallet 7 ("Commitments") constant
// 2".
type location struct {
	section string
	i       int // the item's position in its section, -1 for none
	name    string
	part    string
	j       int // the position in part, -1 for none
}

func (l location) String() string {
	s := l.section
	if l.i >= 0 {
		s += " " + strconv.Itoa(l.i)
	}
	if l.name != "" {
		s += fmt.Sprintf(" (%q)", l.name)
	}
	if l.part != "" {
		s += " " + l.part
	}
	if l.j >= 0 {
		s += " " + strconv.Itoa(l.j)
	}
	return s
}

// item starts reading the i-th item of section; after an error the
// location stays where the error happened.
func (w *walker) item(section string, i int) {
	if w.d.Err() == nil {
		w.at = location{section: section, i: i, j: -1}
	}
}

// part moves to a part of the current item.
func (w *walker) part(p string) { w.sub(p, -1) }

// sub moves to the j-th element of a part of the current item.
func (w *walker) sub(p string, j int) {
	if w.d.Err() == nil {
		w.at.part, w.at.j = p, j
	}
}

// option reads an Option's tag: 0 None, 1 Some.
func (w *walker) option() bool {
	tag := w.d.U8()
	if tag > 1 {
		w.d.Fail("option tag %d", tag)
	}
	return tag == 1
}

// typeID reads a type id: a compact u32.
func (w *walker) typeID() uint32 {
	v := w.d.Compact()
	if v > 1<<32-1 {
		w.d.Fail("type id %d exceeds u32", v)
		return 0
	}
	return uint32(v)
}

// text reads a String: compact length, UTF-8 bytes.
func (w *walker) text() []byte {
	b := w.d.Fixed(w.d.Len(maxLen, minByte, "text"))
	if !utf8.Valid(b) {
		w.d.Fail("text is not UTF-8")
		return nil
	}
	return b
}

// bytes walks a Vec<u8>.
func (w *walker) bytes() { w.d.Fixed(w.d.Len(maxLen, minByte, "bytes")) }

// docs walks a Vec<String>.
func (w *walker) docs() {
	n := w.d.Len(maxLen, minText, "docs")
	for i := 0; i < n && w.d.Err() == nil; i++ {
		w.text()
	}
}
