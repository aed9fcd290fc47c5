package node_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// TestLostOwnChainDoesNotBanPeers: a validator's node comes back with an
// empty store (a new disk, a data directory not carried over) while its
// peer holds the validator's chain. The peer's status shows that chain
// ahead of the node's; Store.Put refuses every block of a chain the node
// has an appender for (ledger.ErrLocalChain). Blocks the peer served are
// valid by every check of spec/ledger.md: the node reports them (an
// error in its log, Stats.LocalChainAhead) and does not ban the peer,
// which it did when the refusal counted as an invalid block. Nor does it
// sign another block of the chain (ledger.ErrHalted).
func TestLostOwnChainDoesNotBanPeers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 2, nodetest.Options{})
	for i := range c.Configs {
		c.Configs[i].Network.StatusInterval = 100 * time.Millisecond
	}
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
	// Node 0 takes node 1's status on connect, tries to backfill its own
	// chain, and reports the blocks it cannot take.
	for n0.Network().Stats().LocalChainAhead == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("node 0 never reported node 1's blocks of its own chain: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n0.Network().Banned(id1) {
		t.Fatalf("node 0 banned honest node 1 for serving node 0's own chain (stats %+v)", n0.Network().Stats())
	}
	// Nor does it ask node 1 again at the next status exchanges.
	asked, status := n0.Network().Stats().LocalChainAhead, served(t, c.Nodes[1], "status")
	for served(t, c.Nodes[1], "status") < status+5 {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if got := n0.Network().Stats().LocalChainAhead; got != asked || n0.Network().Banned(id1) {
		t.Fatalf("after 5 more status exchanges: %d reports (was %d), banned %v", got, asked, n0.Network().Banned(id1))
	}
	// And it signs nothing: its next block would stand at a height the
	// network holds.
	v := c.Keys[0].Public()
	if h := n0.Store().Halted(v); h == nil || h.Validator != v {
		t.Fatalf("node 0's chain is not halted: %v", h)
	}
	if _, err := n0.Append(ctx, recordtest.Anchor(1), nodetest.Transcripts(v, 100, 1, 0), nil); !errors.Is(err, ledger.ErrHalted) {
		t.Fatalf("node 0 appended to its lost chain: %v", err)
	}
}
