package node_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// appendBlocks appends count blocks of per transcripts on node i of c,
// numbering transcripts from first; it returns the receipts.
func appendBlocks(t *testing.T, ctx context.Context, c *nodetest.Cluster, i int, first uint64, count, per, pad int) []ledger.Receipt {
	t.Helper()
	v := c.Keys[i].Public()
	var out []ledger.Receipt
	for b := range count {
		ts := nodetest.Transcripts(v, first+uint64(b*per), per, pad)
		r, err := c.Nodes[i].Append(ctx, recordtest.Anchor(1), ts, nil)
		if err != nil {
			t.Fatalf("node %d append: %v", i, err)
		}
		out = append(out, r)
	}
	return out
}

// sameChains checks that every running node stores exactly the chain of v
// that node ref stores, objects included.
func sameChains(t *testing.T, c *nodetest.Cluster, ref int, v keys.PublicKey) {
	t.Helper()
	want, err := c.Nodes[ref].Store().Head(v)
	if err != nil {
		t.Fatalf("node %d head of %s: %v", ref, v.Short(), err)
	}
	for _, i := range c.Running() {
		s := c.Nodes[i].Store()
		got, err := s.Head(v)
		if err != nil {
			t.Fatalf("node %d head of %s: %v", i, v.Short(), err)
		}
		if got.Block != want.Block || got.Checkpoint != want.Checkpoint {
			t.Fatalf("node %d head of %s is %v, node %d has %v", i, v.Short(), got.Block, ref, want.Block)
		}
		for b, err := range s.Blocks(v, 0) {
			if err != nil {
				t.Fatalf("node %d: %v", i, err)
			}
			for _, tc := range b.TranscriptCIDs() {
				if _, err := s.Transcript(tc); err != nil {
					t.Fatalf("node %d: transcript %s of %s: %v", i, tc, b.Ref(), err)
				}
			}
		}
	}
}

func TestEveryBlockReachesEveryNode(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 5, nodetest.Options{})
	c.StartAll()
	if err := c.WaitMesh(ctx, 4); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			appendBlocks(t, ctx, c, i, 0, 3, 4, 0)
		}()
	}
	wg.Wait()
	// A block whose transcripts do not fit one gossip message: it travels
	// alone and its transcripts by sync.
	big := appendBlocks(t, ctx, c, 2, 100, 1, 3, 400_000)[0]
	for i := range 5 {
		want := uint64(2)
		if i == 2 {
			want = big.Block.Height
		}
		if err := c.WaitHeads(ctx, c.Keys[i].Public(), want); err != nil {
			t.Fatal(err)
		}
		sameChains(t, c, i, c.Keys[i].Public())
	}
	for _, i := range c.Running() {
		st := c.Nodes[i].Network().Stats()
		if st.Rejected != 0 || st.Bans != 0 {
			t.Errorf("node %d: %+v: honest traffic was rejected", i, st)
		}
		if st.StoredFromGossip == 0 {
			t.Errorf("node %d stored nothing from gossip: %+v", i, st)
		}
	}
}

func TestLateJoinerBackfillsEveryChain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Node 5 is an observer that joins after the others wrote their chains.
	c := nodetest.New(t, 6, nodetest.Options{Observers: []int{5}})
	for i := range 5 {
		c.Start(i)
	}
	if err := c.WaitMesh(ctx, 4); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := range 5 {
		appendBlocks(t, ctx, c, i, 0, 8, 5, 100)
	}
	t.Logf("appended in %v", time.Since(t0))
	for i := range 5 {
		if err := c.WaitHeads(ctx, c.Keys[i].Public(), 7); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("propagated in %v", time.Since(t0))
	late := c.Start(5)
	for i := range 5 {
		if err := late.WaitHead(ctx, c.Keys[i].Public(), 7); err != nil {
			t.Fatalf("late node: %v", err)
		}
		sameChains(t, c, i, c.Keys[i].Public())
	}
	t.Logf("backfilled in %v", time.Since(t0))
	if st := late.Network().Stats(); st.StoredFromSync != 40 {
		t.Errorf("late node stored %d blocks by sync, want all 40: %+v", st.StoredFromSync, st)
	}
}

func TestRestartedNodeCatchesUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 5, nodetest.Options{})
	c.StartAll()
	if err := c.WaitMesh(ctx, 4); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		appendBlocks(t, ctx, c, i, 0, 2, 3, 0)
	}
	for i := range 5 {
		if err := c.WaitHeads(ctx, c.Keys[i].Public(), 1); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	c.Stop(4)
	t.Logf("stopped in %v", time.Since(t0))
	for i := range 4 {
		appendBlocks(t, ctx, c, i, 100, 5, 3, 0)
	}
	t.Logf("appended in %v", time.Since(t0))
	restarted := c.Start(4)
	t.Logf("restarted in %v", time.Since(t0))
	for i := range 4 {
		if err := restarted.WaitHead(ctx, c.Keys[i].Public(), 6); err != nil {
			t.Fatalf("restarted node: %v", err)
		}
		sameChains(t, c, i, c.Keys[i].Public())
	}
	t.Logf("caught up in %v", time.Since(t0))
	// Its own chain survived the restart and keeps growing.
	appendBlocks(t, ctx, c, 4, 100, 1, 3, 0)
	if err := c.WaitHeads(ctx, c.Keys[4].Public(), 2); err != nil {
		t.Fatal(err)
	}
	sameChains(t, c, 4, c.Keys[4].Public())
}

// TestCloseKeepsAcknowledged closes a node while appends are in flight:
// every append that was acknowledged is in the store after a restart.
func TestCloseKeepsAcknowledged(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 1, nodetest.Options{})
	n := c.Start(0)
	v := c.Keys[0].Public()
	var futures []ledger.Future
	stopped := make(chan struct{})
	for i := range 40 {
		futures = append(futures, n.Add(ctx, recordtest.Anchor(1), nodetest.Transcripts(v, uint64(i*2), 2, 0), nil))
		if i == 25 {
			go func() {
				defer close(stopped)
				c.Stop(0)
			}()
		}
	}
	var acked []ledger.Receipt
	for _, f := range futures {
		if r, err := f(); err == nil {
			acked = append(acked, r)
		}
	}
	<-stopped
	if len(acked) == 0 {
		t.Fatal("no append was acknowledged before the close")
	}
	n = c.Start(0)
	for _, r := range acked {
		for _, tc := range r.Transcripts {
			got, err := n.Store().Transcript(tc)
			if err != nil {
				t.Fatalf("acknowledged transcript %s lost: %v", tc, err)
			}
			if got.Ref.Height != r.Block.Height {
				t.Fatalf("transcript %s in block %d, receipt says %d", tc, got.Ref.Height, r.Block.Height)
			}
		}
	}
}
