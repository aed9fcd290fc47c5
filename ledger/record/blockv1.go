package record

import (
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// BlockFormatV1 is the first block format, which names no network. Stored
// and archived format-1 blocks stay readable and verifiable; stores no
// longer take them (spec/ledger.md#format-1-blocks).
const BlockFormatV1 = 1

// BlockDomainV1 prefixes the bytes a format-1 block signature covers.
const BlockDomainV1 = "affine-ledger/block/v1"

// blockMapHeadV1 is the first byte of every format-1 block: a CBOR map of
// its 10 keys. Format 2 has 11 (net).
const blockMapHeadV1 = 0xa0 | 10

// headerV1 is the layout of a format-1 header: every key of Header but net.
// The codec has no optional keys, so the old layout is a type of its own.
type headerV1 struct {
	Format      uint64         `cbor:"v"`
	Validator   keys.PublicKey `cbor:"validator"`
	Height      uint64         `cbor:"height"`
	Prev        codec.Link     `cbor:"prev"`
	TimeMS      int64          `cbor:"time_ms"`
	Anchor      Anchor         `cbor:"anchor"`
	Transcripts []codec.Link   `cbor:"transcripts"`
	Decisions   []codec.Link   `cbor:"decisions"`
	Checkpoint  Checkpoint     `cbor:"checkpoint"`
}

type blockV1 struct {
	headerV1
	Signature keys.Signature `cbor:"sig"`
}

func (h *Header) v1() headerV1 {
	return headerV1{
		Format: h.Format, Validator: h.Validator, Height: h.Height, Prev: h.Prev, TimeMS: h.TimeMS,
		Anchor: h.Anchor, Transcripts: h.Transcripts, Decisions: h.Decisions, Checkpoint: h.Checkpoint,
	}
}

func (w *blockV1) block() Block {
	return Block{Header: Header{
		Format: w.Format, Validator: w.Validator, Height: w.Height, Prev: w.Prev, TimeMS: w.TimeMS,
		Anchor: w.Anchor, Transcripts: w.Transcripts, Decisions: w.Decisions, Checkpoint: w.Checkpoint,
	}, Signature: w.Signature}
}
