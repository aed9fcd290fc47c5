package p2p

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// An observer started without a genesis hash runs on a store that the
// first block it takes binds. That block must be of the observer's own
// subnet: a hotkey registered on two subnets signs a chain on each, and
// the other subnet's block, replayed into this one, bound the store to the
// wrong network for good, so that every block of its own was then
// refused (and the node failed to start again).

// otherSubnet is the network of recordtest.Network's chain, another subnet.
var otherSubnet = record.Network{Genesis: recordtest.Network.Genesis, Netuid: recordtest.Network.Netuid + 1}

func unboundObserver(t *testing.T, tune ...func(*Config)) (*Network, *ledger.Store) {
	t.Helper()
	store, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	own := func(c *Config) { c.NetUID = recordtest.Network.Netuid }
	return startOn(t, store, append([]func(*Config){own}, tune...)...), store
}

func TestUnboundStoreRefusesAnotherSubnetsGossip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, store := unboundObserver(t)
	k := recordtest.Hotkey(t, "//Alice")
	msg := bareMessage(t, firstBlock(t, k, otherSubnet, 1, 0))
	topic := hostilePeer(t, ctx, n, wire.BlocksTopic(recordtest.Network.Netuid))[0]
	if err := topic.Publish(ctx, msg); err != nil {
		t.Fatal(err)
	}
	for st := n.Stats(); st.Rejected+st.Accepted+st.Ignored == 0; st = n.Stats() {
		if ctx.Err() != nil {
			t.Fatal("the node never judged the block")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := n.Stats(); st.Rejected != 1 {
		t.Errorf("another subnet's block was not rejected: %+v", st)
	}
	if got := store.Network(); !got.IsZero() {
		t.Errorf("another subnet's block bound the store to %s", got)
	}
}

// The same by backfill: a peer that claims this subnet and serves a
// validator's chain of another.
func TestUnboundStoreRefusesAnotherSubnetsChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice := recordtest.Hotkey(t, "//Alice")
	liar, err := ledger.Open(t.TempDir(), ledger.WithNetwork(otherSubnet))
	if err != nil {
		t.Fatal(err)
	}
	defer liar.Close()
	app, err := liar.NewAppender(alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Append(ctx, recordtest.Anchor(1), nil, nil); err != nil {
		t.Fatal(err)
	}
	netLiar := startOn(t, liar, func(c *Config) { c.NetUID = recordtest.Network.Netuid })
	n, store := unboundObserver(t, func(c *Config) { c.Peers = []peer.AddrInfo{netLiar.AddrInfo()} })
	for !n.Banned(netLiar.ID()) {
		if _, err := store.Head(alice.Public()); err == nil {
			t.Fatalf("the observer stored another subnet's chain, and is now of %s", store.Network())
		}
		if ctx.Err() != nil {
			t.Fatal("the observer neither stored nor refused the chain")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := store.Network(); !got.IsZero() {
		t.Errorf("the store was bound to %s", got)
	}
}
