package node_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

// partition is a connection gater refusing, in both directions, the peers
// it is told to cut off.
type partition struct {
	mu  sync.Mutex
	cut map[peer.ID]bool
}

func (g *partition) set(cut map[peer.ID]bool) {
	g.mu.Lock()
	g.cut = cut
	g.mu.Unlock()
}

func (g *partition) allows(p peer.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.cut[p]
}

func (g *partition) InterceptPeerDial(p peer.ID) bool                 { return g.allows(p) }
func (g *partition) InterceptAddrDial(p peer.ID, _ ma.Multiaddr) bool { return g.allows(p) }
func (g *partition) InterceptAccept(network.ConnMultiaddrs) bool      { return true }
func (g *partition) InterceptSecured(_ network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	return g.allows(p)
}
func (g *partition) InterceptUpgraded(network.Conn) (bool, control.DisconnectReason) { return true, 0 }

// TestPartitionHeals splits four validators into {0, 1} and {2, 3}, lets
// every validator append on its side, heals the split and checks that every
// node converges to the same head of every chain.
func TestPartitionHeals(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const n = 4
	gaters := make([]*partition, n)
	c := nodetest.New(t, n, nodetest.Options{Tune: func(i int, cfg *node.Config) {
		gaters[i] = &partition{}
		cfg.Network.Gater = gaters[i]
	}})
	c.StartAll()
	if err := c.WaitMesh(ctx, n-1); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		appendBlocks(t, ctx, c, i, 0, 1, 2, 0)
	}
	for i := range n {
		if err := c.WaitHeads(ctx, c.Keys[i].Public(), 0); err != nil {
			t.Fatal(err)
		}
	}

	side := func(i int) int { return i / 2 }
	for i := range n {
		cut := map[peer.ID]bool{}
		for j := range n {
			if side(j) != side(i) {
				cut[c.IDs[j]] = true
			}
		}
		gaters[i].set(cut)
	}
	for i := range n {
		for j := range n {
			if side(j) != side(i) {
				c.Nodes[i].Network().Host().Network().ClosePeer(c.IDs[j])
			}
		}
	}
	connectedAcross := func() error {
		for i := range n {
			for j := range n {
				if side(j) != side(i) && c.Nodes[i].Network().Host().Network().Connectedness(c.IDs[j]) == network.Connected {
					return fmt.Errorf("node %d is connected to node %d across the partition", i, j)
				}
			}
		}
		return nil
	}
	waitFor(t, ctx, "the partition", func() bool { return connectedAcross() == nil })

	// Both sides append; each side sees only its own side's blocks.
	const more = 3
	for i := range n {
		appendBlocks(t, ctx, c, i, 100, more, 2, 0)
	}
	for i := range n {
		for j := range n {
			if side(j) == side(i) {
				if err := c.Nodes[i].WaitHead(ctx, c.Keys[j].Public(), more); err != nil {
					t.Fatalf("node %d during the partition: %v", i, err)
				}
			}
		}
	}
	if err := connectedAcross(); err != nil {
		t.Fatal(err) // the reconnect loops kept dialing: the gater held
	}
	for i := range n {
		for j := range n {
			if side(j) == side(i) {
				continue
			}
			if h, err := c.Nodes[i].Store().Head(c.Keys[j].Public()); err != nil || h.Block.Height != 0 {
				t.Fatalf("node %d holds validator %d's chain at %+v (%v) across the partition", i, j, h, err)
			}
		}
	}

	// Heal: allow every connection and dial across.
	for i := range n {
		gaters[i].set(nil)
	}
	for i := range n {
		for j := range n {
			if side(j) != side(i) {
				if err := c.Nodes[i].Network().Host().Connect(ctx, c.Nodes[j].AddrInfo()); err != nil {
					t.Fatalf("heal: node %d dials node %d: %v", i, j, err)
				}
			}
		}
	}
	t0 := time.Now()
	waitCtx, waitCancel := context.WithTimeout(ctx, 20*time.Second)
	defer waitCancel()
	for i := range n {
		for j := range n {
			if err := c.Nodes[i].WaitHead(waitCtx, c.Keys[j].Public(), more); err != nil {
				t.Fatalf("node %d after the heal: %v", i, err)
			}
		}
	}
	t.Logf("converged %v after the heal", time.Since(t0))
	for j := range n {
		sameChains(t, c, j, c.Keys[j].Public())
	}
	// Same set of chains: no node holds a chain the others lack.
	want := heads(t, c.Nodes[0].Store())
	for i := 1; i < n; i++ {
		got := heads(t, c.Nodes[i].Store())
		if len(got) != len(want) {
			t.Fatalf("node %d holds %d chains, node 0 %d", i, len(got), len(want))
		}
		for v, h := range want {
			if got[v] != h {
				t.Fatalf("node %d head of %s is %v, node 0 has %v", i, v.Short(), got[v], h)
			}
		}
	}
	for i := range n {
		if st := c.Nodes[i].Network().Stats(); st.Rejected != 0 || st.Bans != 0 {
			t.Errorf("node %d penalized an honest peer over the partition: %+v", i, st)
		}
	}
}

func heads(t *testing.T, s *ledger.Store) map[keys.PublicKey]record.BlockRef {
	t.Helper()
	out := map[keys.PublicKey]record.BlockRef{}
	for h, err := range s.Heads() {
		if err != nil {
			t.Fatal(err)
		}
		out[h.Block.Validator] = h.Block
	}
	return out
}
