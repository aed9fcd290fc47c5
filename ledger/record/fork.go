package record

import (
	"bytes"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// ForkProofFormat is the version of the fork proof record. Format 1, whose
// blocks were of block format 1, is withdrawn: such blocks name no network,
// so two of them may be one validator's blocks on two networks, and prove
// nothing (spec/ledger.md#fork-proof).
const ForkProofFormat = 2

// ForkProof is the evidence that a validator signed two different blocks at
// one height: both signed blocks, verbatim. A and B are ordered by their
// CIDs' binary form (A smaller), so the same pair gives the same proof, and
// the same proof CID, on every node whatever order it saw them in.
type ForkProof struct {
	Format    uint64         `cbor:"v" json:"v"`
	Validator keys.PublicKey `cbor:"validator" json:"validator"`
	Height    uint64         `cbor:"height" json:"height"`
	A         Bytes          `cbor:"a" json:"a"`
	B         Bytes          `cbor:"b" json:"b"`
}

// NewForkProof builds the proof of two signed block encodings. It verifies
// both as VerifyForkProof does.
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
// both of the named validator at the named height and of one network
// (block format 2), both validly signed. It returns the two blocks.
func (p *ForkProof) Verify() (*Block, *Block, error) {
	switch p.Format {
	case ForkProofFormat:
	case 1:
		return nil, nil, malformed("fork proof", "format 1 is withdrawn: its blocks name no network, so they may be the validator's blocks on two networks")
	default:
		return nil, nil, malformed("fork proof", "format %d, this code reads %d", p.Format, ForkProofFormat)
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
		if b.Format != BlockFormat {
			return nil, nil, malformed("fork proof", "block %d is of format %d, which names no network", i, b.Format)
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

// Encode returns the proof's bytes and CID.
func (p *ForkProof) Encode() ([]byte, cid.Cid, error) {
	b, c, err := codec.Encode(p)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("fork proof: %w", err)
	}
	return b, c, nil
}

// DecodeForkProof parses and verifies an encoded fork proof. It never panics.
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
// checked they name one).
func (p *ForkProof) Network() (Network, error) {
	b, err := DecodeBlock(p.A)
	if err != nil {
		return Network{}, fmt.Errorf("fork proof: %w", err)
	}
	return b.Net, nil
}
