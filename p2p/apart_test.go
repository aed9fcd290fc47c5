package p2p

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// anotherChain is recordtest.Network's subnet on another chain: a test
// chain's subnet of the same netuid as the main one's.
var anotherChain = record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}

// chainOn opens a store of net holding key's chain of blocks blocks.
func chainOn(t *testing.T, net record.Network, key *keys.Hotkey, blocks int) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(net))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	appendChain(t, s, key, blocks, 1, 0)
	return s
}

// waitFor polls cond until it holds, failing t with what after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two nodes of one subnet on two chains, where Alice validates on both:
// each holds her chain of its own network, B's higher than A's, and B
// holds Bob's too. Connected (B lists A as a static peer), each learns
// from the other's status that it is of another chain: neither backfills
// from the other or fetches its block where Alice's chains differ (which
// the store would refuse, banning the peer), neither bans the other; they
// disconnect and neither dials the other again.
func TestPeersOfAnotherChainAreSetApart(t *testing.T) {
	t.Parallel()
	alice, bob := recordtest.Hotkey(t, "//Alice"), recordtest.Hotkey(t, "//Bob")
	storeA := chainOn(t, recordtest.Network, alice, 2)
	storeB := chainOn(t, anotherChain, alice, 3)
	appendChain(t, storeB, bob, 1, 1, 0)
	headA, err := storeA.Head(alice.Public())
	if err != nil {
		t.Fatal(err)
	}
	headB, err := storeB.Head(alice.Public())
	if err != nil {
		t.Fatal(err)
	}
	own := func(c *Config) { c.NetUID = recordtest.Network.Netuid; c.Key = alice }
	a := startOn(t, storeA, own)
	b := startOn(t, storeB, own, func(c *Config) { c.Peers = []peer.AddrInfo{a.AddrInfo()} })

	waitFor(t, "both nodes set the other apart", func() bool { return a.Apart(b.ID()) && b.Apart(a.ID()) })
	waitFor(t, "the nodes disconnected", func() bool {
		return a.host.Network().Connectedness(b.ID()) != network.Connected && b.host.Network().Connectedness(a.ID()) != network.Connected
	})
	for _, n := range []*Network{a, b} {
		if st := n.Stats(); st.Bans != 0 || st.StoredFromSync != 0 || st.OtherNetworks != 1 {
			t.Errorf("stats %+v, want no ban, nothing stored, one peer of another network", st)
		}
	}
	if a.Banned(b.ID()) || b.Banned(a.ID()) {
		t.Error("an honest node of another chain was banned")
	}
	if h, err := storeA.Head(alice.Public()); err != nil || h.Block != headA.Block || h.Equivocating {
		t.Errorf("A's chain of Alice: head %v, %v; want its own, %v", h.Block, err, headA.Block)
	}
	if _, err := storeA.Head(bob.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("A stored Bob's chain of another network: %v", err)
	}
	if h, err := storeB.Head(alice.Public()); err != nil || h.Block != headB.Block || h.Equivocating {
		t.Errorf("B's chain of Alice: head %v, %v; want its own, %v", h.Block, err, headB.Block)
	}
	for _, p := range a.Peers() {
		t.Errorf("A still lists peer %s", p.ID)
	}
	// Neither dials the other, whether its static peer or not.
	for _, d := range []struct{ from, to *Network }{{a, b}, {b, a}} {
		if err := d.from.host.Connect(context.Background(), d.to.AddrInfo()); err == nil {
			t.Errorf("%s dialed %s, a peer of another network, again", d.from.ID(), d.to.ID())
		}
	}
}

// A status of another chain is answered with error 1 naming both
// networks, and records nothing: the peer, which claims a chain and a
// fork proof, is never asked for either. It is not banned.
func TestStatusOfAnotherChainIsRefused(t *testing.T) {
	t.Parallel()
	n := startFresh(t, func(c *Config) { c.NetUID = recordtest.Network.Netuid })
	h, requests := stallingPeer(t, n)
	alice := recordtest.Hotkey(t, "//Alice")
	b, err := wire.NewBinding(alice, h.ID(), recordtest.Network.Netuid)
	if err != nil {
		t.Fatal(err)
	}
	c := codec.LinkTo(codec.Sum([]byte("a fork proof")))
	st := &wire.Status{
		NetUID: uint64(recordtest.Network.Netuid), Genesis: wire.GenesisOf(anotherChain),
		Heads: []wire.Head{{Validator: alice.Public(), Height: 5, CID: c}}, Forks: []codec.Link{c}, Binding: b,
	}
	resp := ask(t, h, n, mustMarshal(t, wire.Request{Status: st}))
	if resp.Error == nil || resp.Error.Code != wire.CodeBadRequest {
		t.Fatalf("status of another chain answered %+v, want error %d", resp, wire.CodeBadRequest)
	}
	for _, net := range []record.Network{anotherChain, recordtest.Network} {
		if !strings.Contains(resp.Error.Message, net.String()) {
			t.Errorf("refusal %q does not name %s", resp.Error.Message, net)
		}
	}
	if !n.Apart(h.ID()) || n.Banned(h.ID()) {
		t.Errorf("peer apart %v, banned %v; want set apart, not banned", n.Apart(h.ID()), n.Banned(h.ID()))
	}
	waitFor(t, "the peer of another chain was disconnected", func() bool {
		return h.Network().Connectedness(n.ID()) != network.Connected
	})
	// n's own status on connect is all h ever got.
	if got := requests.Load(); got > 1 {
		t.Errorf("the node made %d requests to a peer of another chain", got)
	}
	if n.Banned(h.ID()) {
		t.Error("a peer of another chain was banned")
	}
}

// An observer started without a genesis hash says null in its status: a
// bound node takes it, and the observer takes the bound node's, backfills
// from it and is bound by the first block. Their next exchange names one
// chain on both sides.
func TestUnboundObserverSyncsFromABoundPeer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	alice := recordtest.Hotkey(t, "//Alice")
	bound := startOn(t, chainOn(t, recordtest.Network, alice, 2), func(c *Config) { c.NetUID = recordtest.Network.Netuid; c.Key = alice })
	obs, store := unboundObserver(t, func(c *Config) { c.Peers = []peer.AddrInfo{bound.AddrInfo()} })
	if err := obs.WaitHead(ctx, alice.Public(), 1); err != nil {
		t.Fatalf("the unbound observer did not backfill: %v", err)
	}
	if got := store.Network(); got != recordtest.Network {
		t.Fatalf("the observer's store is of %s, want %s", got, recordtest.Network)
	}
	if g := peerGenesis(t, obs, bound.ID()); g == nil || *g != recordtest.Network.Genesis {
		t.Errorf("the observer lists the bound node of chain %v, want %s", g, recordtest.Network.Genesis)
	}
	obs.exchangeStatus(bound.ID()) // now bound, both ways
	if g := peerGenesis(t, bound, obs.ID()); g == nil || *g != recordtest.Network.Genesis {
		t.Errorf("the bound node lists the observer of chain %v, want %s", g, recordtest.Network.Genesis)
	}
	for _, d := range []struct{ n, p *Network }{{obs, bound}, {bound, obs}} {
		if d.n.Apart(d.p.ID()) || d.n.Banned(d.p.ID()) {
			t.Errorf("%s set %s apart (%v) or banned it (%v)", d.n.ID(), d.p.ID(), d.n.Apart(d.p.ID()), d.n.Banned(d.p.ID()))
		}
	}
}

// peerGenesis is the genesis n lists for its connected peer p.
func peerGenesis(t *testing.T, n *Network, p peer.ID) *record.Hash {
	t.Helper()
	for _, info := range n.Peers() {
		if info.ID == p {
			return info.Genesis
		}
	}
	t.Fatalf("%s does not list %s", n.ID(), p)
	return nil
}

// A peer that speaks only version 1 of the sync protocol is a peer that
// does not speak it: the node sends it nothing, and neither bans it nor
// sets it apart. Its requests find no handler.
func TestSyncV1PeerIsLeftAlone(t *testing.T) {
	t.Parallel()
	n := startFresh(t)
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	const v1 = "/ledger/sync/1"
	var requests atomic.Int64
	h.SetStreamHandler(v1, func(s network.Stream) { requests.Add(1); s.Reset() })
	if err := h.Connect(context.Background(), n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	n.exchangeStatus(h.ID())
	if got := requests.Load(); got != 0 {
		t.Errorf("the node sent %d requests over %s", got, v1)
	}
	if n.Banned(h.ID()) || n.Apart(h.ID()) {
		t.Errorf("a v1 peer was banned (%v) or set apart (%v)", n.Banned(h.ID()), n.Apart(h.ID()))
	}
	if s, err := h.NewStream(context.Background(), n.ID(), v1); err == nil {
		// Multistream may settle the protocol lazily, on first read.
		s.Write([]byte{0})
		if _, err := bufio.NewReader(s).ReadByte(); err == nil {
			t.Errorf("the node answered on %s", v1)
		}
		s.Reset()
	}
}

// An observer started without a genesis hash takes statuses of every
// chain until its first block binds it. A peer whose status named another
// chain then forwarding that chain's block, or a fork proof of two, is an
// honest node of it, not a liar: it is set apart, not struck, and nothing
// it sent is stored.
func TestPeerOfAnotherChainMetBeforeBindingIsSetApart(t *testing.T) {
	alice := recordtest.Hotkey(t, "//Alice")
	a, b := firstBlock(t, alice, anotherChain, 1, 0), firstBlock(t, alice, anotherChain, 2, 0)
	proofRaw := encodedForkProof(t, a, b)
	for _, c := range []struct {
		name, topic string
		data        []byte
	}{
		{"block", wire.BlocksTopic(recordtest.Network.Netuid), bareMessage(t, a)},
		{"fork proof", wire.ForksTopic(recordtest.Network.Netuid), proofRaw},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			n, store := unboundObserver(t)
			h, err := NewHost(newIdentity(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			topic := hostileTopics(t, ctx, h, n, c.topic)[0]
			st := emptyStatus()
			st.NetUID, st.Genesis = uint64(anotherChain.Netuid), wire.GenesisOf(anotherChain)
			askStatus(t, h, n, st) // taken: the observer has no network yet

			bob := recordtest.Hotkey(t, "//Bob")
			if _, err := store.Put(firstBlock(t, bob, recordtest.Network, 1, 0), nil); err != nil {
				t.Fatal(err)
			}
			if store.Network() != recordtest.Network {
				t.Fatalf("the first block bound the store to %s", store.Network())
			}
			if err := topic.Publish(ctx, c.data); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the peer of another chain was set apart", func() bool { return n.Apart(h.ID()) })
			if st := n.Stats(); n.Banned(h.ID()) || st.Rejected != 0 || st.Bans != 0 {
				t.Errorf("the peer of another chain was blamed: banned %v, stats %+v", n.Banned(h.ID()), st)
			}
			if _, err := store.Head(alice.Public()); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("another chain's block was stored: %v", err)
			}
			for p, err := range store.ForkProofs() {
				t.Errorf("fork proof %v stored (err %v)", p.CID, err)
			}
		})
	}
}

// The same by backfill: a node of another chain, met before the observer
// was bound, serving that chain's blocks is set apart, not banned.
func TestPeerOfAnotherChainServingItsChainIsSetApart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice, bob := recordtest.Hotkey(t, "//Alice"), recordtest.Hotkey(t, "//Bob")
	other := startOn(t, chainOn(t, anotherChain, alice, 2), func(c *Config) { c.NetUID = anotherChain.Netuid; c.Key = alice })
	// Alice is out of the observer's set, so that their exchange on
	// connect does not backfill her chain, which would bind the store to
	// the other chain.
	n, store := unboundObserver(t, func(c *Config) { c.Validators = NewStaticSet(bob.Public()) })
	if err := n.host.Connect(ctx, other.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	n.exchangeStatus(other.ID())
	if g := peerGenesis(t, n, other.ID()); g == nil || *g != anotherChain.Genesis {
		t.Fatalf("the observer lists the other chain's node of chain %v", g)
	}
	if _, err := store.Put(firstBlock(t, bob, recordtest.Network, 1, 0), nil); err != nil {
		t.Fatal(err)
	}
	_, err := n.fetchBlocks(ctx, other.ID(), alice.Public(), 0, 1, syncBudget)
	if err == nil || isMisbehavior(err) {
		t.Fatalf("the other chain's block fetched: %v; want an error that is not misbehavior", err)
	}
	if !n.Apart(other.ID()) || n.Banned(other.ID()) {
		t.Errorf("peer apart %v, banned %v; want set apart, not banned", n.Apart(other.ID()), n.Banned(other.ID()))
	}
	if _, err := store.Head(alice.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("another chain's block was stored: %v", err)
	}
}
