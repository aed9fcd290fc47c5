package record

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// ForkProofFormat is the version of the fork proof record this code makes:
// two blocks of block format 2, which name their network.
const ForkProofFormat = 2

// ForkProofFormatV1 is the first fork proof format, of two blocks of block
// format 1. Such blocks name no network, so two of them may be one honest
// validator's blocks on two networks: a format-1 proof is still decoded and
// checked, as every record an earlier version wrote stays checkable, but it
// proves no equivocation, and nothing makes one any more
// (spec/ledger.md#fork-proof).
const ForkProofFormatV1 = 1

// ErrNotEvidence is wrapped by what a fork proof that verifies but proves
// no equivocation answers when asked for its network: one of format 1.
var ErrNotEvidence = errors.New("proves no equivocation")

// ForkProof is two blocks one validator signed at one height: both signed
// blocks, verbatim. A and B are ordered by their CIDs' binary form (A
// smaller), so the same pair gives the same proof, and the same proof CID,
// on every node whatever order it saw them in. Of format 2 it is the
// evidence that the validator equivocated; of format 1, only a record that
// it signed both (ProvesEquivocation).
type ForkProof struct {
	Format    uint64         `cbor:"v" json:"v"`
	Validator keys.PublicKey `cbor:"validator" json:"validator"`
	Height    uint64         `cbor:"height" json:"height"`
	A         Bytes          `cbor:"a" json:"a"`
	B         Bytes          `cbor:"b" json:"b"`
}

// NewForkProof builds the proof of two signed block encodings, of format
// ForkProofFormat: blocks of format 1 make none. It verifies both as
// Verify does.
func NewForkProof(block1, block2 []byte) (*ForkProof, error) {
	a, b := block1, block2
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		a, b = b, a
	}
	blk, err := DecodeBlock(a)
	if err != nil {
		return nil, fmt.Errorf("fork proof: %w", err)
	}
	p := &ForkProof{Format: ForkProofFormat, Validator: blk.Validator, Height: blk.Height, A: a, B: b}
	if _, _, err := p.Verify(); err != nil {
		return nil, err
	}
	return p, nil
}

// Verify checks the proof: two different canonical blocks in CID order,
// both of the named validator at the named height and of the block format
// the proof's format holds (2 for 2, naming one network; 1 for 1), both
// validly signed. It returns the two blocks.
func (p *ForkProof) Verify() (*Block, *Block, error) {
	var blockFormat uint64
	switch p.Format {
	case ForkProofFormat:
		blockFormat = BlockFormat
	case ForkProofFormatV1:
		blockFormat = BlockFormatV1
	default:
		return nil, nil, malformed("fork proof", "format %d, this code reads %d and %d", p.Format, ForkProofFormatV1, ForkProofFormat)
	}
	ca, cb := codec.Sum(p.A), codec.Sum(p.B)
	if c := bytes.Compare(ca.Bytes(), cb.Bytes()); c >= 0 {
		if c == 0 {
			return nil, nil, malformed("fork proof", "both blocks are %s", ca)
		}
		return nil, nil, malformed("fork proof", "blocks not in CID order")
	}
	var out [2]*Block
	for i, raw := range [2][]byte{p.A, p.B} {
		b, err := DecodeBlock(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("fork proof block %d: %w", i, err)
		}
		if b.Validator != p.Validator || b.Height != p.Height {
			return nil, nil, malformed("fork proof", "block %d is validator %s height %d, proof names %s height %d", i, b.Validator, b.Height, p.Validator, p.Height)
		}
		switch {
		case b.Format == blockFormat:
		case p.Format == ForkProofFormat:
			return nil, nil, malformed("fork proof", "block %d is of format %d, which names no network", i, b.Format)
		default:
			return nil, nil, malformed("fork proof", "block %d is of format %d, a fork proof of format %d holds blocks of format %d", i, b.Format, p.Format, blockFormat)
		}
		if i == 1 && b.Net != out[0].Net {
			return nil, nil, malformed("fork proof", "the blocks are of two networks (%s and %s): a validator may sign both", out[0].Net, b.Net)
		}
		if err := b.VerifySignature(); err != nil {
			return nil, nil, fmt.Errorf("fork proof block %d: %w", i, err)
		}
		out[i] = b
	}
	return out[0], out[1], nil
}

// ProvesEquivocation reports whether the proof, once verified, is evidence
// that its validator equivocated: true for format 2. A proof of format 1
// shows two blocks the validator signed at one height, but they name no
// network, and a validator signs a block at each height of each network's
// ledger.
func (p *ForkProof) ProvesEquivocation() bool { return p.Format == ForkProofFormat }

// Encode returns the proof's bytes and CID.
func (p *ForkProof) Encode() ([]byte, cid.Cid, error) {
	b, c, err := codec.Encode(p)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("fork proof: %w", err)
	}
	return b, c, nil
}

// DecodeForkProof parses and verifies an encoded fork proof, of either
// format: ProvesEquivocation says whether it is evidence. It never panics.
func DecodeForkProof(data []byte) (*ForkProof, error) {
	if len(data) > MaxForkProofBytes {
		return nil, malformed("fork proof", "%d bytes, max %d", len(data), MaxForkProofBytes)
	}
	var p ForkProof
	if err := codec.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("fork proof: %w: %w", ErrMalformed, err)
	}
	if _, _, err := p.Verify(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Network returns the network both of the proof's blocks name (Verify has
// checked they name one). A proof of format 1 names none: its error wraps
// ErrNotEvidence, so that no caller takes such a proof for one of its
// network's.
func (p *ForkProof) Network() (Network, error) {
	if p.Format != ForkProofFormat {
		return Network{}, fmt.Errorf("fork proof of %s at height %d is of format %d, whose blocks name no network: they may be the validator's on two networks, so it %w", p.Validator, p.Height, p.Format, ErrNotEvidence)
	}
	b, err := DecodeBlock(p.A)
	if err != nil {
		return Network{}, fmt.Errorf("fork proof: %w", err)
	}
	return b.Net, nil
}
