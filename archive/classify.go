package archive

import (
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Kind is what a section holds where the archive's order allows a block or
// a fork proof.
type Kind int

const (
	// Other is neither: a transcript or decision out of place, or garbage.
	Other Kind = iota
	Block
	ForkProof
)

// Classify tells a block from a fork proof by shape alone (the strict
// decoder rejects unknown fields, so the two never both match); whether
// the record is valid is for the caller to check.
func Classify(data []byte) Kind {
	k, _ := ClassifyBlock(data)
	return k
}

// ClassifyBlock is Classify that also returns the block it decoded, so
// that a caller about to check a block does not decode it again.
func ClassifyBlock(data []byte) (Kind, *record.Block) {
	if b, err := record.UnmarshalBlock(data); err == nil {
		return Block, b
	}
	// The layout of format 2 with a version it refuses (format 1 with a
	// net key): a block all the same, whose check says what is wrong.
	var b record.Block
	if codec.Unmarshal(data, &b) == nil {
		return Block, &b
	}
	var p record.ForkProof
	if codec.Unmarshal(data, &p) == nil {
		return ForkProof, nil
	}
	return Other, nil
}
