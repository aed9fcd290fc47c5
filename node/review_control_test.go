package node_test

import (
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestReviewCheckpointStaysUntilClose: a Checkpoint "stays until Close"
// (node/checkpoint.go), also when the node restarts before the reader
// opened it. The reader holds only the connection until it opens the
// store, so the sweep at the node's next start finds no lock on it and
// removes it under the reader.
func TestReviewCheckpointStaysUntilClose(t *testing.T) {
	t.Parallel()
	c := nodetest.New(t, 1, nodetest.Options{Observers: []int{0}})
	c.Start(0)
	dataDir := c.Configs[0].DataDir
	ck, err := node.RequestCheckpoint(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	c.Stop(0)
	c.Start(0)
	s, err := ledger.OpenReadOnly(ck.Dir)
	if err != nil {
		t.Fatalf("a checkpoint not yet closed, after the node restarted: %v", err)
	}
	s.Close()
}
