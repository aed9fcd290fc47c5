package record_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// mth is RFC 6962 §2.1 written out from the RFC, as an independent check
// of the library wiring (leaf data = binary CID).
func mth(leaves []cid.Cid) [32]byte {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0].Bytes()...))
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := mth(leaves[:k]), mth(leaves[k:])
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

func testCIDs(n int) []cid.Cid {
	out := make([]cid.Cid, n)
	for i := range out {
		out[i] = codec.Sum([]byte(fmt.Sprintf("leaf %d", i)))
	}
	return out
}

func TestCheckpointMatchesRFC6962(t *testing.T) {
	cids := testCIDs(70)
	tree := record.NewTree()
	for n := 0; n <= len(cids); n++ {
		want := mth(cids[:n])
		if got := record.CheckpointOf(cids[:n]); got.Size != uint64(n) || got.Root != want {
			t.Fatalf("size %d: CheckpointOf gives %s, RFC 6962 gives %x", n, got.Root, want)
		}
		if got := tree.Root(); got != want {
			t.Fatalf("size %d: running tree gives %s, want %x", n, got, want)
		}
		// The frontier alone rebuilds the running state.
		back, err := record.TreeFromFrontier(tree.Size(), tree.Frontier())
		if err != nil || back.Root() != want {
			t.Fatalf("size %d: frontier round trip: %v", n, err)
		}
		if n < len(cids) {
			tree.Append(cids[n], nil)
		}
	}
	if _, err := record.TreeFromFrontier(5, nil); err == nil {
		t.Fatal("frontier of the wrong length accepted")
	}
}

func TestAppendVisitsPerfectNodes(t *testing.T) {
	tree := record.NewTree()
	var nodes []record.Node
	for _, c := range testCIDs(8) {
		tree.Append(c, func(n record.Node) { nodes = append(nodes, n) })
	}
	// 8 leaves, 4 + 2 + 1 inner nodes: every perfect subtree once.
	if len(nodes) != 15 {
		t.Fatalf("%d nodes visited, want 15", len(nodes))
	}
	top := nodes[len(nodes)-1]
	if top.Level != 3 || top.Index != 0 || top.Hash != tree.Root() {
		t.Fatalf("last node %+v is not the root", top)
	}
}

func TestVerifyHelpersRejectEmptyMismatch(t *testing.T) {
	newer := record.CheckpointOf(testCIDs(3))
	if err := record.VerifyConsistency(record.Checkpoint{Root: record.EmptyRoot()}, newer, nil); err != nil {
		t.Fatalf("empty log is a prefix of any log: %v", err)
	}
	if err := record.VerifyConsistency(record.Checkpoint{}, newer, nil); !errors.Is(err, record.ErrBadProof) {
		t.Fatalf("size 0 with a non-empty root: got %v", err)
	}
}

// TestTreeCloneIsIndependent: appending to a clone leaves the original as
// it was. A clone shared the original's frontier, and an append that
// merged nodes (3 leaves plus one) overwrote the original's first node.
func TestTreeCloneIsIndependent(t *testing.T) {
	t.Parallel()
	var leaves []cid.Cid
	for i := range 8 {
		leaves = append(leaves, codec.Sum([]byte{byte(i)}))
	}
	for size := range len(leaves) {
		orig := record.NewTree()
		for _, c := range leaves[:size] {
			orig.Append(c, nil)
		}
		want := orig.Checkpoint()
		clone := orig.Clone()
		for _, c := range leaves[size:] {
			clone.Append(c, nil)
		}
		if got := orig.Checkpoint(); got != want {
			t.Fatalf("size %d: appending to a clone changed the original's checkpoint", size)
		}
		if got, want := clone.Checkpoint(), record.CheckpointOf(leaves); got != want {
			t.Fatalf("size %d: clone extended to %d leaves has %+v, want %+v", size, len(leaves), got, want)
		}
		orig.Append(leaves[size], nil)
		if got, want := orig.Checkpoint(), record.CheckpointOf(leaves[:size+1]); got != want {
			t.Fatalf("size %d: the original extended after its clone: %+v, want %+v", size, got, want)
		}
	}
}
