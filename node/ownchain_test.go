package node_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestLostOwnChainDoesNotBanPeers: a validator's node comes back with an
// empty store (a new disk, a data directory not carried over) while its
// peer holds the validator's chain. The peer's status shows that chain
// ahead of the node's, so the node backfills it; Store.Put refuses every
// block of a chain the node has an appender for (ErrBadParent, "this node
// writes the chain"), which the backfill takes for an invalid block the peer
// must have checked, and the node bans its honest peer. Blocks the peer
// served are valid by every check of spec/ledger.md; the refusal is local
// policy, not the peer's misbehavior (spec/p2p.md#misbehavior).
func TestLostOwnChainDoesNotBanPeers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 2, nodetest.Options{})
	c.StartAll()
	if err := c.WaitMesh(ctx, 1); err != nil {
		t.Fatal(err)
	}
	appendBlocks(t, ctx, c, 0, 0, 2, 2, 0)
	if err := c.Nodes[1].WaitHead(ctx, c.Keys[0].Public(), 1); err != nil {
		t.Fatal(err)
	}

	c.Stop(0)
	if err := os.RemoveAll(node.StoreDir(c.Configs[0].DataDir)); err != nil {
		t.Fatal(err)
	}
	n0 := c.Start(0)
	id1 := c.Nodes[1].ID()
	// Node 0 takes node 1's status on connect and starts the backfill of
	// its own chain at once; the ban, if any, follows within milliseconds.
	deadline := time.After(10 * time.Second)
	for {
		if n0.Network().Banned(id1) {
			t.Fatalf("node 0 banned honest node 1 for serving node 0's own chain (stats %+v)", n0.Network().Stats())
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-deadline:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
