package proofs

import (
	"fmt"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A fork proof file (spec/proofs.md, "Fork proof") is the record itself:
// the fork proof's canonical DAG-CBOR bytes, which its CID (the sha256 CID
// of the bytes) authenticates, as ledger prove --fork writes them. It
// needs no wrapper: both signed blocks are in it. The JSON proofs start
// with "{" (after white space); a DAG-CBOR record is a CBOR map, whose
// first byte is 0xa0 to 0xbf, a byte no JSON text starts with.

// ForkType is the "type" verify-proof reports for a fork proof; a fork
// proof file has no type member, being a ledger record.
const ForkType = "affine-ledger/fork-proof"

// ForkProof is a fork proof file read by ReadProof: decoded canonically,
// not yet verified (Verify does that).
type ForkProof struct {
	record.ForkProof
	// Raw is the file: the record's bytes.
	Raw []byte
}

// isCBORMap reports whether data starts as a CBOR map (major type 5).
func isCBORMap(data []byte) bool { return len(data) > 0 && data[0]>>5 == 5 }

// readFork decodes data as a fork proof record: canonical DAG-CBOR of the
// record's members, within its size bound. Whether the blocks in it are
// blocks, and signed, is Verify's question.
func readFork(data []byte) (*ForkProof, error) {
	if len(data) > record.MaxForkProofBytes {
		return nil, fmt.Errorf("%w: fork proof: %d bytes, max %d", ErrProofFormat, len(data), record.MaxForkProofBytes)
	}
	p := &ForkProof{Raw: data}
	if err := codec.Unmarshal(data, &p.ForkProof); err != nil {
		return nil, fmt.Errorf("%w: fork proof (DAG-CBOR): %v", ErrProofFormat, err)
	}
	return p, nil
}

// Verify checks the fork proof offline as record.ForkProof.Verify does:
// two different blocks in CID order, of the named validator and height,
// of the block format the proof's format holds (of format 2, naming one
// network), both validly signed. A proof of format 1 verifies yet proves
// no equivocation, its blocks naming no network: its error wraps
// record.ErrNotEvidence, with Proved filled in.
func (p *ForkProof) Verify() (Proved, error) {
	c := codec.Sum(p.Raw)
	format := p.Format
	out := Proved{Type: ForkType, Validator: p.Validator, Height: p.Height, Fork: c.String(), Format: &format}
	a, _, err := p.ForkProof.Verify()
	if err != nil {
		return out, fmt.Errorf("%w: %v", ErrProof, err)
	}
	out.Block, out.OtherBlock = codec.Sum(p.A).String(), codec.Sum(p.B).String()
	out.Network = networkOf(a) // b's too: Verify checked it
	proves := p.ProvesEquivocation()
	out.ProvesEquivocation = &proves
	if !proves {
		_, err := p.Network()
		return out, err
	}
	return out, nil
}
