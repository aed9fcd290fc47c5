package proofs

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// The checks hash as spec/ledger.md says (RFC 6962 with SHA-256 over the
// transcripts' binary CIDs), with the library's hasher rather than the
// store's Merkle code, as verify does.
var hasher = rfc6962.DefaultHasher

func leafHash(transcript cid.Cid) []byte { return hasher.HashLeaf(transcript.Bytes()) }

// Proof types (spec/proofs.md): the "type" member of a proof file (and
// ForkType, fork.go).
const (
	InclusionType   = "affine-ledger/inclusion-proof/v1"
	ConsistencyType = "affine-ledger/consistency-proof/v1"
)

// MaxProofFile bounds a proof file (spec/proofs.md): room for the largest
// transcript and a block, or two blocks, in base64 with the hashes.
const MaxProofFile = 4 << 20

// ErrProof is wrapped by every reason a proof does not verify;
// ErrProofFormat by every reason a file is not a proof at all.
var (
	ErrProof       = errors.New("proof does not verify")
	ErrProofFormat = errors.New("not a proof file")
)

// InclusionProof shows that a transcript is a leaf of its validator's log
// at the checkpoint of a signed block, with no store: the transcript's
// bytes, its leaf index, the RFC 6962 audit path and the signed block.
type InclusionProof struct {
	Type string `json:"type"`
	// Transcript is the transcript's canonical bytes (base64 in JSON).
	Transcript []byte `json:"transcript"`
	// CID is the transcript's CID, which the bytes must hash to.
	CID       string        `json:"cid"`
	LeafIndex uint64        `json:"leaf_index"`
	TreeSize  uint64        `json:"tree_size"`
	Hashes    []record.Hash `json:"hashes"`
	// Block is the signed block whose checkpoint the proof is against.
	Block []byte `json:"block"`
}

// ConsistencyProof shows that the log at Older's checkpoint is a prefix of
// the log at Newer's: the two signed blocks and the RFC 6962 consistency
// proof between their checkpoints.
type ConsistencyProof struct {
	Type   string        `json:"type"`
	Older  []byte        `json:"older"`
	Newer  []byte        `json:"newer"`
	Hashes []record.Hash `json:"hashes"`
}

// Proved is what a verified proof establishes.
type Proved struct {
	Type      string         `json:"type"`
	Validator keys.PublicKey `json:"validator"`
	// Height, Block and Checkpoint are the (newer) signed block's.
	// Of a fork proof, Height is both blocks', Block the first's (in CID
	// order) and Checkpoint absent: the two blocks have one each.
	Height     uint64            `json:"height"`
	Block      string            `json:"block"`
	Checkpoint record.Checkpoint `json:"checkpoint,omitzero"`
	// Network is the network the signed block names; nil for a block of
	// format 1, which names none.
	Network *record.Network `json:"network,omitempty"`
	// Transcript and Leaf: inclusion proofs only. Leaf is a pointer so
	// that leaf 0 is printed and only a consistency proof's absent leaf is
	// omitted.
	Transcript string  `json:"transcript,omitempty"`
	Leaf       *uint64 `json:"leaf,omitempty"`
	// OlderHeight, OlderBlock and OlderCheckpoint: consistency proofs only
	// (OlderHeight a pointer for height 0, as Leaf).
	OlderHeight     *uint64            `json:"older_height,omitempty"`
	OlderBlock      string             `json:"older_block,omitempty"`
	OlderCheckpoint *record.Checkpoint `json:"older_checkpoint,omitempty"`
	// Fork, OtherBlock, Format and ProvesEquivocation: fork proofs only.
	// Fork is the proof's CID, OtherBlock the second block's CID, Format
	// the proof's format; ProvesEquivocation is false for format 1,
	// whose blocks name no network (a pointer, so false is printed).
	Fork               string  `json:"fork,omitempty"`
	OtherBlock         string  `json:"other_block,omitempty"`
	Format             *uint64 `json:"format,omitempty"`
	ProvesEquivocation *bool   `json:"proves_equivocation,omitempty"`
}

// VerifyProof checks a proof read by ReadProof.
func VerifyProof(p any) (Proved, error) {
	switch p := p.(type) {
	case *InclusionProof:
		return p.Verify()
	case *ConsistencyProof:
		return p.Verify()
	case *ForkProof:
		return p.Verify()
	}
	return Proved{}, fmt.Errorf("%w: %T is not a proof", ErrProofFormat, p)
}

// Verify checks the proof offline: the block decodes and its signature
// verifies under its validator's hotkey; the tree size is the block's
// checkpoint size; the transcript bytes hash to the CID and form a
// transcript of that validator; and the audit path leads from the leaf
// hash of the CID to the checkpoint's root.
func (p *InclusionProof) Verify() (Proved, error) {
	if p.Type != InclusionType {
		return Proved{}, fmt.Errorf("%w: type %q", ErrProofFormat, p.Type)
	}
	blk, bc, err := signedBlock("block", p.Block)
	if err != nil {
		return Proved{}, err
	}
	out := Proved{Type: p.Type, Validator: blk.Validator, Height: blk.Height, Block: bc.String(), Checkpoint: blk.Checkpoint, Network: networkOf(blk)}
	if p.TreeSize != blk.Checkpoint.Size {
		return out, fmt.Errorf("%w: tree size %d, the block's checkpoint has %d", ErrProof, p.TreeSize, blk.Checkpoint.Size)
	}
	c := codec.Sum(p.Transcript)
	leaf := p.LeafIndex
	out.Transcript, out.Leaf = c.String(), &leaf
	if p.CID != c.String() {
		return out, fmt.Errorf("%w: the transcript bytes hash to %s, the proof names %s", ErrProof, c, p.CID)
	}
	t, err := record.DecodeTranscript(p.Transcript)
	if err != nil {
		return out, fmt.Errorf("%w: %v", ErrProof, err)
	}
	if t.Validator != blk.Validator {
		return out, fmt.Errorf("%w: the transcript names validator %s, the block is %s's", ErrProof, t.Validator, blk.Validator)
	}
	if err := proof.VerifyInclusion(hasher, p.LeafIndex, p.TreeSize, leafHash(c), hashSlices(p.Hashes), blk.Checkpoint.Root[:]); err != nil {
		return out, fmt.Errorf("%w: leaf %d of %d under root %s: %v", ErrProof, p.LeafIndex, p.TreeSize, blk.Checkpoint.Root, record.MerkleError(err))
	}
	return out, nil
}

// Verify checks the proof offline: both blocks decode and are validly
// signed by one validator, the older one is not above the newer one (and
// is the same block at the same height), and the hashes prove the older
// checkpoint's log a prefix of the newer's.
func (p *ConsistencyProof) Verify() (Proved, error) {
	if p.Type != ConsistencyType {
		return Proved{}, fmt.Errorf("%w: type %q", ErrProofFormat, p.Type)
	}
	older, oc, err := signedBlock("older block", p.Older)
	if err != nil {
		return Proved{}, err
	}
	newer, nc, err := signedBlock("newer block", p.Newer)
	if err != nil {
		return Proved{}, err
	}
	ocp := older.Checkpoint
	out := Proved{Type: p.Type, Validator: newer.Validator, Height: newer.Height, Block: nc.String(), Checkpoint: newer.Checkpoint,
		OlderHeight: &older.Height, OlderBlock: oc.String(), OlderCheckpoint: &ocp, Network: networkOf(newer)}
	switch {
	case older.Validator != newer.Validator:
		return out, fmt.Errorf("%w: blocks of two validators, %s and %s", ErrProof, older.Validator, newer.Validator)
	case older.Format != newer.Format || older.Net != newer.Net:
		// One hotkey may sign a ledger on each of several networks: two
		// of its blocks at one height are then no equivocation.
		return out, fmt.Errorf("%w: blocks of two ledgers: format %d %s and format %d %s", ErrProof, older.Format, describeNetwork(older), newer.Format, describeNetwork(newer))
	case older.Height > newer.Height:
		return out, fmt.Errorf("%w: the older block is at height %d, above the newer's %d", ErrProof, older.Height, newer.Height)
	case older.Height == newer.Height && !oc.Equals(nc) && older.Format == record.BlockFormatV1:
		// Format 1 names no network (spec/ledger.md, "Fork proof").
		return out, fmt.Errorf("%w: two different signed blocks at height %d, of format 1: they name no network, so they may be the validator's on two networks and prove no equivocation", ErrProof, older.Height)
	case older.Height == newer.Height && !oc.Equals(nc):
		return out, fmt.Errorf("%w: two different signed blocks at height %d: the validator equivocated", ErrProof, older.Height)
	case ocp.Size > newer.Checkpoint.Size:
		return out, fmt.Errorf("%w: the older log has %d transcripts, the newer %d", ErrProof, ocp.Size, newer.Checkpoint.Size)
	}
	if ocp.Size == 0 {
		// Every log extends the empty one (RFC 9162 2.1.4); the proof is
		// empty and the root is that of the empty tree.
		if len(p.Hashes) != 0 || !bytes.Equal(ocp.Root[:], hasher.EmptyRoot()) {
			return out, fmt.Errorf("%w: from the empty log the proof must be empty and the root SHA-256 of nothing", ErrProof)
		}
		// An empty newer log has that root too: equal sizes, equal roots.
		if newer.Checkpoint.Size == 0 && newer.Checkpoint.Root != ocp.Root {
			return out, fmt.Errorf("%w: the newer log is empty too, but its root is %s, not SHA-256 of nothing", ErrProof, newer.Checkpoint.Root)
		}
		return out, nil
	}
	if err := proof.VerifyConsistency(hasher, ocp.Size, newer.Checkpoint.Size, hashSlices(p.Hashes), ocp.Root[:], newer.Checkpoint.Root[:]); err != nil {
		return out, fmt.Errorf("%w: size %d to %d: %v", ErrProof, ocp.Size, newer.Checkpoint.Size, record.MerkleError(err))
	}
	return out, nil
}

func signedBlock(what string, raw []byte) (*record.Block, cid.Cid, error) {
	blk, err := record.DecodeBlock(raw)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("%w: %s: %v", ErrProof, what, err)
	}
	if err := blk.VerifySignature(); err != nil {
		return nil, cid.Undef, fmt.Errorf("%w: %s: %v", ErrProof, what, err)
	}
	return blk, codec.Sum(raw), nil
}

func hashSlices(hs []record.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

func networkOf(b *record.Block) *record.Network {
	if b.Format == record.BlockFormatV1 {
		return nil
	}
	n := b.Net
	return &n
}

func describeNetwork(b *record.Block) string {
	if b.Format == record.BlockFormatV1 {
		return "(no network)"
	}
	return b.Net.String()
}
