// Package node runs a ledger node: the store in a data directory, the
// local validator's appender (absent for an observer), the p2p network that
// gossips and backfills chains, a status file and an optional HTTP status
// endpoint, and the services that drive the validator (the evaluation loop
// plugs in as a Service).
//
// Data directory layout (DataDir):
//
//	store/              the ledger store (Pebble; spec/store.md)
//	p2p/identity.key    the node's libp2p ed25519 identity, mode 0600
//	status.json         the node's status, rewritten every few seconds
//	node.sock           the control socket readers ask for checkpoints on (control.go)
//	checkpoints/        the store's checkpoints readers hold
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/p2p"
)

// StoreDir is where a node keeps its ledger store under a data directory.
func StoreDir(dataDir string) string { return filepath.Join(dataDir, "store") }

// IdentityFile is where a node keeps its libp2p identity.
func IdentityFile(dataDir string) string { return filepath.Join(dataDir, "p2p", "identity.key") }

// StatusFile is the status file a running node rewrites.
func StatusFile(dataDir string) string { return filepath.Join(dataDir, "status.json") }

// Service is long-running work on a node, such as the validator's
// evaluation loop: Run starts with the node and must return when ctx ends,
// before the node closes its appender and store.
type Service interface {
	Run(ctx context.Context, n *Node) error
}

// Config configures Start. DataDir and Listen are required.
type Config struct {
	DataDir string
	// Key is the validator's hotkey; nil runs an observer, which
	// replicates and verifies but appends nothing.
	Key    *keys.Hotkey
	NetUID uint16
	// Genesis is the hash of the public chain's genesis block. With
	// NetUID it names the network the store is bound to
	// (ledger.WithNetwork). Zero leaves the store's recorded network, or,
	// in a store that has none, the first block it takes binds it; only an
	// observer may leave it zero.
	Genesis record.Hash
	Listen  []ma.Multiaddr
	// Peers are static peers (multiaddresses ending in /p2p/<id>).
	Peers []peer.AddrInfo
	// Validators whose blocks are accepted; empty accepts every validly
	// signed chain, unless ValidatorSet is set, which overrides it (a
	// ChainSet's, for a node on a chain).
	Validators   []keys.PublicKey
	ValidatorSet p2p.ValidatorSet
	MDNS         bool
	// StatusAddr, if set, serves GET /status (JSON) and /metrics
	// (Prometheus) there; it must be a loopback address.
	StatusAddr string
	// Handler, if set, is built once the store is open and mounted under
	// "/" of the status endpoint (the explorer); /status and /metrics stay
	// the node's.
	Handler func(n *Node) (http.Handler, error)
	// Metrics is the node's Prometheus registry and ledger metrics
	// (default metrics.New()); the p2p layer registers its own in it.
	Metrics *metrics.Metrics
	// StatusEvery is how often status.json is rewritten (default 2 s).
	StatusEvery time.Duration
	Logger      *slog.Logger
	Services    []Service
	// BeforeSigning, if set on a validator's node, is called with the
	// open store before the appender starts: an error stops the start
	// before anything is signed (the validator's own on-chain commitment
	// held to the store, epoch.CheckOwnChain).
	BeforeSigning func(context.Context, *ledger.Store) error

	// Network tunes the p2p layer (intervals, limits); its NetUID,
	// Identity, Listen, Peers, Validators, Key, MDNS, Logger and Metrics
	// are set from the fields above.
	Network p2p.Config
	// Appender options; Store options; Pebble options for the store
	// (tests).
	Appender []ledger.AppenderOption
	Store    []ledger.Option
	Pebble   *pebble.Options
}

// Node is a running node.
type Node struct {
	cfg      Config
	log      *slog.Logger
	store    *ledger.Store
	appender *ledger.Appender
	net      *p2p.Network
	metrics  *metrics.Metrics
	registry *prometheus.Registry
	http     *http.Server
	statusLn net.Listener
	control  *control

	ctx      context.Context
	cancel   context.CancelFunc
	services sync.WaitGroup
	bg       sync.WaitGroup
	once     sync.Once
	closeErr error
	// started: Start succeeded.
	started  bool
	addMu    sync.Mutex
	closing  bool
	svcErrMu sync.Mutex
	svcErr   error
	// failed is closed when a service or the store fails.
	failed     chan struct{}
	failedOnce sync.Once
}

// Start opens the store under cfg.DataDir, starts the network and the
// services. Close it to stop. A start that fails removes what it made in
// the data directory (madeByStart) and leaves what it found as it was.
func Start(cfg Config) (_ *Node, err error) {
	if cfg.DataDir == "" {
		return nil, errors.New("node: no data directory")
	}
	if len(cfg.Listen) == 0 {
		return nil, errors.New("node: no listen address")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StatusEvery <= 0 {
		cfg.StatusEvery = 2 * time.Second
	}
	// Registered first, so that it runs last: after the deferred Close
	// below has closed the store.
	made := noteFresh(cfg.DataDir)
	defer func() {
		if err != nil {
			made.remove()
		}
	}()
	identity, err := p2p.LoadIdentity(IdentityFile(cfg.DataDir))
	if err != nil {
		return nil, err
	}
	opts := append([]ledger.Option(nil), cfg.Store...)
	if cfg.Pebble != nil {
		opts = append(opts, ledger.WithPebbleOptions(cfg.Pebble))
	}
	if cfg.Genesis != (record.Hash{}) {
		opts = append(opts, ledger.WithNetwork(record.Network{Genesis: cfg.Genesis, Netuid: cfg.NetUID}))
	} else if cfg.Key != nil {
		return nil, errors.New("node: a validator needs its network's genesis hash (Config.Genesis)")
	}
	store, err := ledger.Open(StoreDir(cfg.DataDir), opts...)
	if err != nil {
		return nil, err
	}
	if net := store.Network(); !net.IsZero() && net.Netuid != cfg.NetUID {
		store.Close()
		return nil, fmt.Errorf("node: the store in %s is of %s, not of netuid %d", cfg.DataDir, net, cfg.NetUID)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	n := &Node{cfg: cfg, log: cfg.Logger, store: store, metrics: cfg.Metrics, registry: cfg.Metrics.Registry(), failed: make(chan struct{})}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	if cfg.Key != nil {
		if cfg.BeforeSigning != nil {
			if err = cfg.BeforeSigning(context.Background(), store); err != nil {
				return nil, err
			}
		}
		if n.appender, err = store.NewAppender(cfg.Key, cfg.Appender...); err != nil {
			return nil, err
		}
		if h := n.appender.Resumed(); h != nil {
			n.log.Warn("node: signing resumed: the chain was halted by a peer's block this store did not make", "validator", h.Validator, "height", h.Height, "block", h.Block)
		}
	}
	nc := cfg.Network
	nc.NetUID, nc.Identity, nc.Listen, nc.Peers = cfg.NetUID, identity, cfg.Listen, cfg.Peers
	nc.Key, nc.MDNS, nc.Logger, nc.Metrics = cfg.Key, cfg.MDNS, cfg.Logger, n.registry
	nc.Validators = cfg.ValidatorSet
	if nc.Validators == nil && len(cfg.Validators) > 0 {
		nc.Validators = p2p.NewStaticSet(cfg.Validators...)
	}
	if n.net, err = p2p.Start(store, nc); err != nil {
		return nil, err
	}
	if cfg.StatusAddr != "" {
		if err := n.serveStatus(cfg.StatusAddr); err != nil {
			return nil, err
		}
	}
	if n.control, err = startControl(store, cfg.DataDir); err != nil {
		// The node works without it; only readers of its store need it.
		n.log.Warn("no control socket: other processes cannot read the store while the node runs", "err", err)
		err = nil
	}
	// Said once the node runs, not before an error that stops it: the
	// rebinding is in the store either way, and is news only with a node
	// that runs on it.
	if from, ok := store.ReboundFrom(); ok {
		cfg.Logger.Warn("node: the store held no record of the network it was bound to; it is now bound to this node's", "was", from.String(), "now", store.Network().String())
	}
	n.started = true
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.bg.Add(2)
	go n.writeStatusLoop()
	go n.metricsLoop()
	for _, s := range cfg.Services {
		n.services.Add(1)
		go func() {
			defer n.services.Done()
			if err := s.Run(n.ctx, n); err != nil && n.ctx.Err() == nil {
				n.fail(fmt.Errorf("service stopped: %w", err))
			}
		}()
	}
	return n, nil
}

// Close stops the services, commits and publishes what the appender holds,
// stops the network and closes the store. Everything acknowledged (a
// resolved append, a block a peer saw us accept) is durable before Close
// starts: Close loses nothing that was acknowledged.
func (n *Node) Close() error {
	n.once.Do(func() {
		if n.cancel != nil {
			n.cancel()
		}
		n.services.Wait()
		n.addMu.Lock()
		n.closing = true
		n.addMu.Unlock()
		if n.appender != nil {
			n.appender.Close()
		}
		if n.net != nil {
			// Best effort: blocks committed just now reach peers by
			// gossip rather than at their next status exchange.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			n.net.Flush(ctx)
			cancel()
		}
		n.bg.Wait()
		var errs []error
		if n.http != nil {
			errs = append(errs, n.http.Close())
		}
		if n.net != nil {
			errs = append(errs, n.net.Close())
		}
		if n.control != nil {
			errs = append(errs, n.control.close())
		}
		if n.store != nil {
			// Not after a failed start: it would replace the status
			// of the node that last ran here with one of a node that
			// never did.
			if n.started {
				n.writeStatus()
			}
			errs = append(errs, n.store.Close())
		}
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}

// fail records a failure that leaves the node unable to do its job (a
// service stopped, the store refuses writes) and signals Failed.
func (n *Node) fail(err error) {
	n.svcErrMu.Lock()
	n.svcErr = errors.Join(n.svcErr, err)
	n.svcErrMu.Unlock()
	n.log.Error("node: failed", "err", err)
	n.failedOnce.Do(func() { close(n.failed) })
}

// Failed is closed once a service stopped on its own or the store failed
// a write; Err says why. A node's command exits then, for its supervisor
// to restart it: the store replays its log on open and loses nothing
// acknowledged.
func (n *Node) Failed() <-chan struct{} { return n.failed }

// Err returns the errors of services that stopped on their own and of the
// store, if it failed a write.
func (n *Node) Err() error {
	n.svcErrMu.Lock()
	defer n.svcErrMu.Unlock()
	return n.svcErr
}

// Store returns the node's store (for reads; peers' blocks arrive through
// the network, local ones through Append).
func (n *Node) Store() *ledger.Store { return n.store }

// Network returns the node's p2p network.
func (n *Node) Network() *p2p.Network { return n.net }

// ID returns the node's peer ID.
func (n *Node) ID() peer.ID { return n.net.ID() }

// AddrInfo returns the node's peer ID and listen addresses.
func (n *Node) AddrInfo() peer.AddrInfo { return n.net.AddrInfo() }

// Validator returns the local validator's public key, false for an
// observer.
func (n *Node) Validator() (keys.PublicKey, bool) {
	if n.cfg.Key == nil {
		return keys.PublicKey{}, false
	}
	return n.cfg.Key.Public(), true
}

// Appender returns the local validator's appender, nil on an observer.
// Services that write through it directly (the validator loop, the
// epoch driver's outcome records) call Announce once a block is durable;
// the node closes it after the services have stopped.
func (n *Node) Appender() *ledger.Appender { return n.appender }

// Announce tells the network the local chain grew, so that the new blocks
// are gossiped now rather than at the next status exchange.
func (n *Node) Announce() { n.net.Announce() }

// DataDir returns the node's data directory; services keep their own
// state files there.
func (n *Node) DataDir() string { return n.cfg.DataDir }

// Metrics returns the node's metrics.
func (n *Node) Metrics() *metrics.Metrics { return n.metrics }

// Logger returns the node's logger.
func (n *Node) Logger() *slog.Logger { return n.log }

// Key returns the local validator's hotkey, false for an observer.
func (n *Node) Key() (*keys.Hotkey, bool) { return n.cfg.Key, n.cfg.Key != nil }

// ErrObserver is returned by Append and Add on a node without a key.
var ErrObserver = errors.New("node is an observer: it has no validator key")

// Add queues transcripts and decisions for the local validator's next block
// (ledger.Appender.Add). The block is published once durable, whether or
// not the caller waits for the Future.
func (n *Node) Add(ctx context.Context, anchor record.Anchor, transcripts []record.Transcript, decisions [][]byte) ledger.Future {
	if n.appender == nil {
		return func() (ledger.Receipt, error) { return ledger.Receipt{}, fmt.Errorf("append: %w", ErrObserver) }
	}
	n.addMu.Lock()
	defer n.addMu.Unlock()
	if n.closing {
		return func() (ledger.Receipt, error) {
			return ledger.Receipt{}, fmt.Errorf("append: node: %w", ledger.ErrClosed)
		}
	}
	f := n.appender.Add(ctx, anchor, transcripts, decisions)
	n.bg.Add(1)
	go func() {
		defer n.bg.Done()
		if _, err := f(); err == nil {
			n.net.Announce()
		}
	}()
	return f
}

// Append adds transcripts and decisions and returns once their block is
// durable; it is published right after.
func (n *Node) Append(ctx context.Context, anchor record.Anchor, transcripts []record.Transcript, decisions [][]byte) (ledger.Receipt, error) {
	return n.Add(ctx, anchor, transcripts, decisions)()
}

// WaitHead returns once the store holds v's chain up to height.
func (n *Node) WaitHead(ctx context.Context, v keys.PublicKey, height uint64) error {
	return n.net.WaitHead(ctx, v, height)
}
