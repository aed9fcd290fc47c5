package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestKnownForkIsNotRefetched: a validator equivocated and keeps two
// chains; node 0 holds the shorter, node 1 the longer. Every status
// exchange shows node 1's head of the validator above node 0's. Node 0
// backfilled again at each one (up to 512 blocks and 8 MiB of objects a
// request), met the known fork again and dropped it, forever; now it does
// not ask node 1 for that chain again once it found the fork there.
func TestKnownForkIsNotRefetched(t *testing.T) {
	t.Parallel()
	ctx, eve, c := eveObservers(t)
	for i := range c.Configs {
		c.Configs[i].Network.StatusInterval = 100 * time.Millisecond
	}
	// Two chains of Eve, different from height 0: node 0 stores two
	// blocks of one, node 1 three of the other, before they start.
	for i, chain := range [][][]byte{foreignChain(t, eve, 0, 2, 1), foreignChain(t, eve, 1000, 3, 1)} {
		s, err := ledger.Open(node.StoreDir(c.Configs[i].DataDir), ledger.WithNetwork(recordtest.Network))
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range chain {
			rb, err := wire.DecodeBlockMessage(msg)
			if err != nil {
				t.Fatal(err)
			}
			objs := map[cid.Cid][]byte{}
			for k, v := range rb.Objects {
				objs[k] = v
			}
			if _, err := s.Put(rb.Raw, objs); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c.StartAll()
	n0, n1 := c.Nodes[0], c.Nodes[1]
	for {
		if h, err := n0.Store().Head(eve.Public()); err == nil && h.Equivocating {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("node 0 never learned of the fork")
		case <-n0.Network().Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}

	blocks0, status0 := served(t, n1, "blocks"), served(t, n1, "status")
	const rounds = 20
	for served(t, n1, "status") < status0+rounds {
		select {
		case <-ctx.Done():
			t.Fatalf("node 1 served %d status requests, want %d", served(t, n1, "status")-status0, rounds)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if more := served(t, n1, "blocks") - blocks0; more > 2 {
		t.Fatalf("over %d status exchanges after node 0 recorded the fork, node 1 served it %d more blocks requests of a fork it already knows", rounds, more)
	}
}

// served returns how many sync requests of kind n served.
func served(t *testing.T, n *node.Node, kind string) int {
	t.Helper()
	mfs, err := n.Metrics().Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "ledger_p2p_sync_requests_served_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return 0
}

// eveObservers is two observer nodes whose validator set is Eve alone,
// not started, with a context that ends the test after 60 s.
func eveObservers(t *testing.T) (context.Context, *keys.Hotkey, *nodetest.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	eve, err := keys.FromURI("//Eve")
	if err != nil {
		t.Fatal(err)
	}
	c := nodetest.New(t, 2, nodetest.Options{Observers: []int{0, 1}})
	for i := range c.Configs {
		c.Configs[i].Validators = []keys.PublicKey{eve.Public()}
	}
	return ctx, eve, c
}
