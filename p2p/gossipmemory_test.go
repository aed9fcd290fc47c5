package p2p

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestGossipFetchesHoldAtMostTheirMemory: blocks gossiped without their
// objects make the node fetch them from the forwarder, up to 64 MiB a
// block. Each validation fetched at once, so one key holder's blocks at
// that limit, forwarded together, made a node take in gigabytes; now the
// fetches wait for room under their bound. Here the bound fits one fetch
// and the forwarder never answers: one fetch is asked for, the others wait.
func TestGossipFetchesHoldAtMostTheirMemory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := startFresh(t, func(c *Config) { c.gossipMemory = 1 })
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var fetches atomic.Int64
	h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) {
		if readObjectsRequest(s) != nil {
			fetches.Add(1)
		}
		<-ctx.Done()
		s.Reset()
	})
	topic := hostileTopics(t, ctx, h, n, wire.BlocksTopic(0))[0]

	const blocks = 3
	for i := range blocks {
		k := recordtest.Hotkey(t, fmt.Sprintf("//gossip-fetch-%d", i))
		if err := topic.Publish(ctx, bareMessage(t, firstBlock(t, k, recordtest.Network, 1, 1))); err != nil {
			t.Fatal(err)
		}
	}
	for fetches.Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the node never asked the forwarder for a block's objects")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Give the other validations time to ask too, had they not waited.
	time.Sleep(500 * time.Millisecond)
	if got := fetches.Load(); got != 1 {
		t.Errorf("%d fetches asked at once under a bound that fits one", got)
	}
	if held, _ := n.gossipHeld.stats(); held != fetchBound(record.MaxBlockObjectBytes) {
		t.Errorf("%d bytes reserved, want one fetch's bound %d", held, fetchBound(record.MaxBlockObjectBytes))
	}
}
