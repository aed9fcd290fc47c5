package p2p

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// Config configures Start. Identity and Listen are required.
type Config struct {
	NetUID   uint16
	Identity crypto.PrivKey
	Listen   []ma.Multiaddr
	// Peers are kept connected (a reconnect loop dials them) and are
	// gossipsub direct peers: list them on both sides.
	Peers []peer.AddrInfo
	// Validators whose blocks are accepted; nil accepts all (an observer).
	// The local validator is always accepted.
	Validators ValidatorSet
	// Key is the local validator's hotkey; nil for an observer. It signs
	// the peer binding; its blocks are the ones Announce publishes.
	Key *keys.Hotkey
	// MDNS also finds peers on the local network.
	MDNS bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics, if set, receives the network's Prometheus metrics.
	Metrics prometheus.Registerer

	// StatusInterval is how often heads are exchanged with every peer
	// beyond the exchange on connect (default 15 s).
	StatusInterval time.Duration
	// ReconnectInterval is the first delay between dials of a
	// disconnected static peer, doubling to 30 s (default 1 s).
	ReconnectInterval time.Duration
	// RequestRate and RequestBurst limit the sync requests served to one
	// peer (default 50/s, burst 100).
	RequestRate  rate.Limit
	RequestBurst int
	// MaxStrikes is how many rejected gossip messages from one peer get it
	// banned (default 3). Invalid sync data bans at once.
	MaxStrikes int
	// Heartbeat is gossipsub's heartbeat (default 1 s; tests shorten it so
	// meshes form sooner).
	Heartbeat time.Duration
	// Gater, if set, is asked about every connection after the node's own
	// bans; it can refuse more, never admit a banned peer. (Tests partition
	// a network with it; an operator could allowlist peers.)
	Gater connmgr.ConnectionGater

	// backfillMemory bounds the fetched bytes backfills hold at once
	// (default MaxBackfillMemory) and backfillFetch the object bytes one
	// fetch gathers (default syncBudget): tests make both small.
	backfillMemory int64
	backfillFetch  int
	// gossipMemory bounds the objects fetched for gossiped blocks
	// (default MaxGossipFetchMemory).
	gossipMemory int64
}

func (c *Config) defaults() {
	if c.Validators == nil {
		c.Validators = AllValidators{}
	}
	if c.Key != nil {
		c.Validators = withLocal{c.Validators, c.Key.Public()}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.StatusInterval <= 0 {
		c.StatusInterval = 15 * time.Second
	}
	if c.ReconnectInterval <= 0 {
		c.ReconnectInterval = time.Second
	}
	if c.RequestRate <= 0 {
		c.RequestRate = 50
	}
	if c.RequestBurst <= 0 {
		c.RequestBurst = 100
	}
	if c.MaxStrikes <= 0 {
		c.MaxStrikes = 3
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = time.Second
	}
	if c.backfillMemory <= 0 {
		c.backfillMemory = MaxBackfillMemory
	}
	if c.gossipMemory <= 0 {
		c.gossipMemory = MaxGossipFetchMemory
	}
	if c.backfillFetch <= 0 {
		c.backfillFetch = syncBudget
	}
}

type withLocal struct {
	ValidatorSet
	local keys.PublicKey
}

func (w withLocal) Contains(v keys.PublicKey) bool { return v == w.local || w.ValidatorSet.Contains(v) }

// Network is a running node's networking: its libp2p host, the gossip topics
// and the sync protocol over one store. All methods are safe for concurrent
// use.
type Network struct {
	cfg Config
	// changingSet: the validator set is a ChangingSet (unknownValidator).
	changingSet bool
	log         *slog.Logger
	store       *ledger.Store
	host        host.Host
	ps          *pubsub.PubSub

	blocks, forks *pubsub.Topic
	subs          []*pubsub.Subscription

	bans    *bans
	strikes strikes
	binding *wire.Binding
	peers   *peerTable
	sync    *syncer
	// gossipHeld bounds the objects fetched for gossiped blocks.
	gossipHeld *heldBytes
	serving    *servingLimits
	out        *outgoing
	seq        *sequencer
	proofs     *proofs
	scores     *scoreBoard
	hub        *hub
	pub        *publisher
	static     *staticPeers
	metrics    *metrics

	ctx    context.Context
	cancel context.CancelFunc
	act    activity
	once   sync.Once
}

// Start starts the network on store: host, gossip, sync, reconnect loop.
// Close it before closing the store.
func Start(store *ledger.Store, cfg Config) (*Network, error) {
	// Decided before defaults wraps the set in the local validator's.
	_, changingSet := cfg.Validators.(*ChangingSet)
	cfg.defaults()
	if cfg.Identity == nil {
		return nil, errors.New("p2p: no node identity")
	}
	n := &Network{cfg: cfg, changingSet: changingSet, log: cfg.Logger, store: store, bans: newBans(), hub: newHub(), seq: newSequencer(), scores: &scoreBoard{}, static: newStaticPeers()}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.metrics = newMetrics(cfg.Metrics)
	n.peers = newPeerTable()
	n.serving = newServingLimits(cfg.RequestRate, cfg.RequestBurst)
	n.out = newOutgoing()
	n.sync = newSyncer(n)
	n.gossipHeld = newHeldBytes(cfg.gossipMemory)
	n.proofs = newProofs(n)
	n.pub = newPublisher(n)

	var gater connmgr.ConnectionGater = n.bans
	if cfg.Gater != nil {
		gater = allOf{n.bans, cfg.Gater}
	}
	h, err := NewHost(cfg.Identity, gater)
	if err != nil {
		return nil, err
	}
	n.host = h
	if err := n.start(); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

func (n *Network) start() error {
	if n.cfg.Key != nil {
		b, err := wire.NewBinding(n.cfg.Key, n.host.ID(), n.cfg.NetUID)
		if err != nil {
			return err
		}
		n.binding = b
	}
	if err := n.proofs.load(); err != nil {
		return err
	}
	if err := n.pub.init(); err != nil {
		return err
	}
	if err := n.startGossip(); err != nil {
		return err
	}
	n.host.SetStreamHandler(wire.SyncProtocol, n.serve)
	sub, err := n.host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged))
	if err != nil {
		return fmt.Errorf("p2p: events: %w", err)
	}
	n.goDo(func() { n.watchPeers(sub) })
	for _, ai := range n.cfg.Peers {
		n.host.Peerstore().AddAddrs(ai.ID, ai.Addrs, peerstore.PermanentAddrTTL)
	}
	// One address at a time: the swarm's Listen succeeds when any address
	// does, and a node told to listen on an address must not run without
	// it (its peers dial it there). AddListenAddr also returns the
	// transport's own error ("bind: address already in use").
	sw, ok := n.host.Network().(*swarm.Swarm)
	if !ok {
		return fmt.Errorf("p2p: host's network is a %T, not a swarm", n.host.Network())
	}
	for _, a := range n.cfg.Listen {
		if err := sw.AddListenAddr(a); err != nil {
			return fmt.Errorf("p2p: listen on %s: %w", a, err)
		}
	}
	for _, ai := range n.cfg.Peers {
		n.goDo(func() { n.keepConnected(ai) })
	}
	n.goDo(n.statusLoop)
	n.goDo(n.pub.loop)
	if n.cfg.MDNS {
		svc := mdns.NewMdnsService(n.host, fmt.Sprintf("affine-ledger-%d", n.cfg.NetUID), mdnsNotifee{n})
		if err := svc.Start(); err != nil {
			return fmt.Errorf("p2p: mdns: %w", err)
		}
		n.goDo(func() { <-n.ctx.Done(); svc.Close() })
	}
	return nil
}

// Close stops the network: no new work is taken, work in progress (a Put,
// a request) finishes or is cancelled, then the host closes. The store is
// not closed.
func (n *Network) Close() error {
	var err error
	n.once.Do(func() {
		n.cancel()
		n.act.close()
		for _, s := range n.subs {
			s.Cancel()
		}
		err = n.host.Close()
	})
	return err
}

// Host returns the libp2p host.
func (n *Network) Host() host.Host { return n.host }

// ID returns the node's peer ID.
func (n *Network) ID() peer.ID { return n.host.ID() }

// AddrInfo returns the node's peer ID and listen addresses.
func (n *Network) AddrInfo() peer.AddrInfo {
	return peer.AddrInfo{ID: n.host.ID(), Addrs: n.host.Addrs()}
}

// TopicPeers returns the peers subscribed to the blocks topic.
func (n *Network) TopicPeers() []peer.ID { return n.blocks.ListPeers() }

// Binding returns the node's signed binding, nil for an observer.
func (n *Network) Binding() *wire.Binding { return n.binding }

// Announce tells the network that the local validator's chain grew: every
// durable block not yet published is published, in height order. Call it
// after an append's Future resolved.
func (n *Network) Announce() { n.pub.wake() }

// Flush publishes, before returning, every durable local block not yet
// published.
func (n *Network) Flush(ctx context.Context) error { return n.pub.publishNew(ctx) }

// WaitHead returns once the store holds v's block at height (or higher), or
// ctx ends.
func (n *Network) WaitHead(ctx context.Context, v keys.PublicKey, height uint64) error {
	for {
		changed := n.hub.wait()
		if h, err := n.store.Head(v); err == nil && h.Block.Height >= height {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("wait for %s height %d: %w", v.Short(), height, ctx.Err())
		}
	}
}

// Changed returns a channel closed at the next change to the store that
// the network made or announced (a block stored, a fork proof recorded, a
// local block published).
func (n *Network) Changed() <-chan struct{} { return n.hub.wait() }

// goDo runs fn as tracked work; it does nothing once closing began.
func (n *Network) goDo(fn func()) {
	if !n.act.enter() {
		return
	}
	go func() {
		defer n.act.exit()
		fn()
	}()
}
