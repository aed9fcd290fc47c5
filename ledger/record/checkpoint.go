package record

import (
	"crypto"
	_ "crypto/sha256" // registers SHA-256 for rfc6962.New
	"errors"
	"fmt"
	"slices"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/affine-ledger/ledger/codec"
)

// Checkpoint commits to a validator's whole log: the number of transcripts
// recorded so far and the RFC 6962 Merkle tree hash over all of them in
// order (spec/ledger.md#checkpoint). Every block carries one, so every block
// is a signed checkpoint in the sense of transparency logs.
type Checkpoint struct {
	Size uint64 `cbor:"size" json:"size"`
	Root Hash   `cbor:"root" json:"root"`
}

// hasher is RFC 6962 with SHA-256: leaf = H(0x00 || data), node = H(0x01 ||
// left || right), empty tree = H("").
var hasher = rfc6962.New(crypto.SHA256)

var rangeFactory = compact.RangeFactory{Hash: hasher.HashChildren}

// LeafHash is the Merkle leaf hash of a transcript: the RFC 6962 leaf hash
// of its binary CID (36 bytes: 0x01 0x71 0x12 0x20 and the SHA-256 of the
// transcript's bytes).
func LeafHash(transcript cid.Cid) Hash {
	var h Hash
	copy(h[:], hasher.HashLeaf(transcript.Bytes()))
	return h
}

// EmptyRoot is the root of the empty log, SHA-256 of nothing.
func EmptyRoot() Hash {
	var h Hash
	copy(h[:], hasher.EmptyRoot())
	return h
}

// Tree is the running state of a log: the compact range [0, size), from
// which the root follows and to which leaves are appended. It holds
// O(log size) hashes. The zero Tree is not usable; use NewTree or
// TreeFromFrontier.
type Tree struct{ r *compact.Range }

// NewTree returns the empty log.
func NewTree() *Tree { return &Tree{rangeFactory.NewEmptyRange(0)} }

// TreeFromFrontier rebuilds the state of a log of size leaves from its
// frontier: the roots of the perfect subtrees covering [0, size), left to
// right, as Frontier returns them.
func TreeFromFrontier(size uint64, frontier []Hash) (*Tree, error) {
	hashes := make([][]byte, len(frontier))
	for i := range frontier {
		hashes[i] = frontier[i][:]
	}
	r, err := rangeFactory.NewRange(0, size, hashes)
	if err != nil {
		return nil, fmt.Errorf("frontier of a log of size %d: %w", size, err)
	}
	return &Tree{r}, nil
}

// Size returns the number of leaves.
func (t *Tree) Size() uint64 { return t.r.End() }

// Root returns the tree hash.
func (t *Tree) Root() Hash {
	if t.r.End() == 0 {
		return EmptyRoot()
	}
	root, err := t.r.GetRootHash(nil)
	if err != nil {
		// Only possible for a range not starting at 0, which a Tree never is.
		panic(fmt.Sprintf("record: merkle root: %v", err))
	}
	var h Hash
	copy(h[:], root)
	return h
}

// Checkpoint returns (size, root).
func (t *Tree) Checkpoint() Checkpoint { return Checkpoint{Size: t.Size(), Root: t.Root()} }

// Frontier returns the roots of the perfect subtrees covering the log.
func (t *Tree) Frontier() []Hash {
	hs := t.r.Hashes()
	out := make([]Hash, len(hs))
	for i, h := range hs {
		copy(out[i][:], h)
	}
	return out
}

// Clone returns an independent copy. The frontier slice is copied: a
// compact range keeps the slice it is given and appends into it, so a
// clone sharing it rewrote the original's nodes on its first merge. The
// hashes themselves are never written in place.
func (t *Tree) Clone() *Tree {
	r, _ := rangeFactory.NewRange(0, t.r.End(), slices.Clone(t.r.Hashes()))
	return &Tree{r}
}

// Node is a perfect subtree root: leaf hashes at level 0.
type Node struct {
	Level uint
	Index uint64
	Hash  Hash
}

// Append adds a transcript leaf. visit, if not nil, is called with every
// perfect subtree root this completes, the leaf itself included; storing
// those nodes is what makes proofs for any tree size cheap.
func (t *Tree) Append(transcript cid.Cid, visit func(Node)) {
	t.AppendLeaf(LeafHash(transcript), visit)
}

// AppendLeaf is Append of a leaf hash already computed with LeafHash, so
// that the caller can hash leaves on other goroutines.
func (t *Tree) AppendLeaf(leaf Hash, visit func(Node)) {
	var fn compact.VisitFn
	if visit != nil {
		fn = func(id compact.NodeID, h []byte) {
			n := Node{Level: id.Level, Index: id.Index}
			copy(n.Hash[:], h)
			visit(n)
		}
	}
	if err := t.r.Append(leaf[:], fn); err != nil {
		// Append fails only for hashes of the wrong shape, never here.
		panic(fmt.Sprintf("record: merkle append: %v", err))
	}
}

// CheckpointOf computes the checkpoint of a whole log from its transcript
// CIDs, in order.
func CheckpointOf(transcripts []cid.Cid) Checkpoint {
	t := NewTree()
	for _, c := range transcripts {
		t.Append(c, nil)
	}
	return t.Checkpoint()
}

// ErrBadProof is wrapped by proof verification failures.
var ErrBadProof = errors.New("proof does not verify")

// MerkleError restates an error of github.com/transparency-dev/merkle's
// proof checks for a reader: the library prints a root mismatch as two Go
// byte slices over three lines ("[181 18 57 ...]"), which no one can
// compare with a checkpoint's root; here both roots are hex, on one line.
// Other errors are returned as they are.
func MerkleError(err error) error {
	var rm proof.RootMismatchError
	if errors.As(err, &rm) {
		return fmt.Errorf("calculated root %x does not match the expected root %x", rm.CalculatedRoot, rm.ExpectedRoot)
	}
	return err
}

// VerifyInclusion checks that transcript is leaf index of the log whose
// checkpoint is cp.
func VerifyInclusion(transcript cid.Cid, index uint64, cp Checkpoint, p [][]byte) error {
	leaf := LeafHash(transcript)
	if err := proof.VerifyInclusion(hasher, index, cp.Size, leaf[:], p, cp.Root[:]); err != nil {
		return fmt.Errorf("inclusion of %s at %d in log of size %d: %w: %v", codec.ShortCID(transcript), index, cp.Size, ErrBadProof, MerkleError(err))
	}
	return nil
}

// VerifyConsistency checks that the log of checkpoint older is a prefix of
// the log of checkpoint newer.
func VerifyConsistency(older, newer Checkpoint, p [][]byte) error {
	if older.Size == 0 {
		// RFC 9162: any tree extends the empty one; the library wants an
		// empty proof and the empty root there.
		if len(p) != 0 || older.Root != EmptyRoot() {
			return fmt.Errorf("consistency of size 0 with %d: %w: want an empty proof and the empty root", newer.Size, ErrBadProof)
		}
		return nil
	}
	if err := proof.VerifyConsistency(hasher, older.Size, newer.Size, p, older.Root[:], newer.Root[:]); err != nil {
		return fmt.Errorf("consistency of size %d with %d: %w: %v", older.Size, newer.Size, ErrBadProof, MerkleError(err))
	}
	return nil
}
