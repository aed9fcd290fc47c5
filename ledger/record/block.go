package record

import (
	"encoding/hex"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// BlockFormat is the version of the block record this code writes. It
// reads BlockFormatV1 too.
const BlockFormat = 2

// BlockDomain prefixes the bytes a block signature covers, so that a block
// signature can never be replayed as a signature of anything else.
const BlockDomain = "affine-ledger/block/v2"

// Hash is a 32-byte digest: a chain block hash or a Merkle root. CBOR: a
// 32-byte string; JSON and text: lower-case hex.
type Hash [32]byte

// String returns lower-case hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText writes lower-case hex.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads 64 hex characters.
func (h *Hash) UnmarshalText(b []byte) error { return decodeHex32("hash", b, (*[32]byte)(h)) }

// Anchor names the public chain block a ledger block refers to: the latest
// chain block the validator had seen, which bounds the block's age and seeds
// its challenges.
type Anchor struct {
	Number uint64 `cbor:"number" json:"number"`
	Hash   Hash   `cbor:"hash" json:"hash"`
}

// Header is a block without its signature: exactly what the signature
// covers.
type Header struct {
	Format    uint64         `cbor:"v" json:"v"`
	Validator keys.PublicKey `cbor:"validator" json:"validator"`
	// Net is the network the block belongs to; zero in format 1, which
	// has no such key.
	Net    Network `cbor:"net" json:"net,omitzero"`
	Height uint64  `cbor:"height" json:"height"`
	// Prev links the block at Height-1; null at height 0.
	Prev   codec.Link `cbor:"prev" json:"prev"`
	TimeMS int64      `cbor:"time_ms" json:"time_ms"`
	Anchor Anchor     `cbor:"anchor" json:"anchor"`
	// Transcripts are this block's leaves, in log order.
	Transcripts []codec.Link `cbor:"transcripts" json:"transcripts"`
	// Decisions link opaque DAG-CBOR decision records.
	Decisions []codec.Link `cbor:"decisions" json:"decisions"`
	// Checkpoint is the validator's whole log after this block.
	Checkpoint Checkpoint `cbor:"checkpoint" json:"checkpoint"`
}

// Block is a signed header. Its CID is the CID of its full encoding,
// signature included.
type Block struct {
	Header
	Signature keys.Signature `cbor:"sig" json:"sig"`
}

// BlockRef names a block.
type BlockRef struct {
	Validator keys.PublicKey `json:"validator"`
	Height    uint64         `json:"height"`
	CID       cid.Cid        `json:"cid"`
}

func (r BlockRef) String() string {
	return fmt.Sprintf("validator %s height %d (%s)", r.Validator.Short(), r.Height, codec.ShortCID(r.CID))
}

// Check enforces the structural rules of spec/ledger.md#block: everything
// that can be checked without the parent or the linked objects.
func (h *Header) Check() error {
	const what = "block"
	switch h.Format {
	case BlockFormat:
		if err := h.Net.Check(); err != nil {
			return malformed(what, "net: %v", err)
		}
	case BlockFormatV1:
		if !h.Net.IsZero() {
			return malformed(what, "format 1 names no network, but net is %s", h.Net)
		}
	default:
		return malformed(what, "format %d, this code reads %d and %d", h.Format, BlockFormatV1, BlockFormat)
	}
	if h.Validator == (keys.PublicKey{}) {
		return malformed(what, "validator is not set")
	}
	if (h.Height == 0) != h.Prev.IsZero() {
		return malformed(what, "height %d with prev %s: only height 0 has no previous block", h.Height, codec.ShortCID(h.Prev.Cid))
	}
	if !h.Prev.IsZero() {
		if err := codec.CheckAddress(h.Prev.Cid); err != nil {
			return malformed(what, "prev: %v", err)
		}
	}
	if h.TimeMS < 0 {
		return malformed(what, "negative time %d", h.TimeMS)
	}
	if len(h.Transcripts) > MaxTranscriptsPerBlock {
		return malformed(what, "%d transcripts, max %d", len(h.Transcripts), MaxTranscriptsPerBlock)
	}
	if len(h.Decisions) > MaxDecisionsPerBlock {
		return malformed(what, "%d decisions, max %d", len(h.Decisions), MaxDecisionsPerBlock)
	}
	seen := make(map[cid.Cid]struct{}, len(h.Transcripts)+len(h.Decisions))
	for _, list := range [...]struct {
		name  string
		links []codec.Link
	}{{"transcript", h.Transcripts}, {"decision", h.Decisions}} {
		for i, l := range list.links {
			if err := codec.CheckAddress(l.Cid); err != nil {
				return malformed(what, "%s %d: %v", list.name, i, err)
			}
			if _, dup := seen[l.Cid]; dup {
				return malformed(what, "%s %d: %s linked twice", list.name, i, l.Cid)
			}
			seen[l.Cid] = struct{}{}
		}
	}
	n := uint64(len(h.Transcripts))
	if h.Checkpoint.Size < n || (h.Height == 0 && h.Checkpoint.Size != n) {
		return malformed(what, "checkpoint size %d with %d transcripts at height %d", h.Checkpoint.Size, n, h.Height)
	}
	return nil
}

// SigningBytes returns the format's domain (BlockDomain, or BlockDomainV1
// for format 1) || 0x00 || the canonical encoding of h in its format's
// layout.
func (h *Header) SigningBytes() ([]byte, error) {
	domain, header := BlockDomain, any(h)
	if h.Format == BlockFormatV1 {
		v1 := h.v1()
		domain, header = BlockDomainV1, &v1
	}
	body, err := codec.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("block: %w", err)
	}
	msg := make([]byte, 0, len(domain)+1+len(body))
	msg = append(msg, domain...)
	msg = append(msg, 0)
	return append(msg, body...), nil
}

// Encode returns the block's canonical bytes, in its format's layout, and
// their CID.
func (b *Block) Encode() ([]byte, cid.Cid, error) {
	var v any = b
	if b.Format == BlockFormatV1 {
		v = &blockV1{headerV1: b.v1(), Signature: b.Signature}
	}
	data, c, err := codec.Encode(v)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("block: %w", err)
	}
	return data, c, nil
}

// Sign checks h, signs it with key (which must be h.Validator's) and returns
// the block with its bytes and CID.
func Sign(h Header, key *keys.Hotkey) (*Block, []byte, cid.Cid, error) {
	if key.Public() != h.Validator {
		return nil, nil, cid.Undef, fmt.Errorf("sign block: key %s is not the block's validator %s", key.Public(), h.Validator)
	}
	if err := h.Check(); err != nil {
		return nil, nil, cid.Undef, err
	}
	msg, err := h.SigningBytes()
	if err != nil {
		return nil, nil, cid.Undef, err
	}
	sig, err := key.Sign(msg)
	if err != nil {
		return nil, nil, cid.Undef, fmt.Errorf("sign block: %w", err)
	}
	b := &Block{Header: h, Signature: sig}
	data, c, err := b.Encode()
	if err != nil {
		return nil, nil, cid.Undef, err
	}
	if len(data) > MaxBlockBytes {
		return nil, nil, cid.Undef, malformed("block", "%d bytes, max %d", len(data), MaxBlockBytes)
	}
	return b, data, c, nil
}

// VerifySignature checks the signature against the block's validator.
func (b *Block) VerifySignature() error {
	msg, err := b.Header.SigningBytes()
	if err != nil {
		return err
	}
	if !keys.Verify(b.Validator, msg, b.Signature) {
		return fmt.Errorf("block of %s at height %d: %w", b.Validator, b.Height, ErrBadSignature)
	}
	return nil
}

// DecodeBlock parses an encoded block and checks its structure (Check). It
// does not verify the signature. It never panics.
func DecodeBlock(data []byte) (*Block, error) {
	if len(data) > MaxBlockBytes {
		return nil, malformed("block", "%d bytes, max %d", len(data), MaxBlockBytes)
	}
	b, err := UnmarshalBlock(data)
	if err != nil {
		return nil, err
	}
	if err := b.Check(); err != nil {
		return nil, err
	}
	return b, nil
}

// UnmarshalBlock decodes a block in the layout of its format, each format
// in its own only, and checks nothing else (DecodeBlock does): what tells a
// block from another record by its shape. It never panics.
func UnmarshalBlock(data []byte) (*Block, error) {
	var b Block
	if len(data) > 0 && data[0] == blockMapHeadV1 {
		var w blockV1
		if err := codec.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("block: %w: %w", ErrMalformed, err)
		}
		if w.Format != BlockFormatV1 {
			return nil, malformed("block", "format %d in the layout of format 1 (no net)", w.Format)
		}
		b = w.block()
		return &b, nil
	}
	if err := codec.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("block: %w: %w", ErrMalformed, err)
	}
	if b.Format == BlockFormatV1 {
		return nil, malformed("block", "format 1 with a net key")
	}
	return &b, nil
}

// TranscriptCIDs returns the block's transcript links as CIDs.
func (h *Header) TranscriptCIDs() []cid.Cid { return cids(h.Transcripts) }

// DecisionCIDs returns the block's decision links as CIDs.
func (h *Header) DecisionCIDs() []cid.Cid { return cids(h.Decisions) }

func cids(ls []codec.Link) []cid.Cid {
	out := make([]cid.Cid, len(ls))
	for i, l := range ls {
		out[i] = l.Cid
	}
	return out
}
