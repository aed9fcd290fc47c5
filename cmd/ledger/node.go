package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p"
	"github.com/affine-ledger/ledger/validator"
)

// nodeWork is what a validator's node does besides replicating.
type nodeWork struct {
	evaluate, epochs bool
	chutesKey        string
	timeout          time.Duration
	// publicOnly: miners are asked at public addresses only
	// (inference.Options.PublicOnly).
	publicOnly bool
}

// nodeServices adds the validator loop and the epoch driver to cfg, on
// chain c. A node without a key is an observer: it has no work to add.
func nodeServices(cfg *node.Config, c chain.Chain, w nodeWork) error {
	if cfg.Key == nil {
		return nil
	}
	var d *epoch.Driver
	if w.epochs {
		var err error
		if d, err = epoch.New(epoch.Config{Chain: c, Key: cfg.Key, Logger: cfg.Logger}); err != nil {
			return err
		}
	}
	if w.evaluate {
		vc := validator.Config{Chain: c, Endpoint: validator.DefaultEndpoint(w.chutesKey),
			Client:   inference.New(inference.Options{Timeout: w.timeout, PublicOnly: w.publicOnly}),
			Logger:   cfg.Logger,
			Progress: validator.LogProgress(cfg.Logger)}
		if d != nil {
			// The duel loop follows the consensus its own epochs compute.
			vc.Consensus = d
		}
		cfg.Services = append(cfg.Services, validator.Service{Config: vc})
	}
	if d != nil {
		cfg.Services = append(cfg.Services, d)
	}
	return nil
}

// askPublicOnly says whether a validator on chainSpec asks miners at
// public addresses only: not on a local chain, a test network whose
// miners run on loopback or the local network, nor with
// --private-endpoints.
func askPublicOnly(chainSpec string, privateEndpoints bool) bool {
	spec, err := chain.ParseSpec(chainSpec)
	return (err != nil || spec.Backend != "local") && !privateEndpoints
}

// observerChainNote says what --chain does for an observer, which duels
// nothing and sets no weights: it said "--chain is used by the explorer
// only", while --chain also gives the node its network (the subnet and
// the chain's genesis, which its store is bound to) and, without
// --validator, the validators whose chains it stores.
func observerChainNote(cfg *node.Config) {
	uses := fmt.Sprintf("the network (netuid %d of chain %s)", cfg.NetUID, cfg.Genesis)
	if cfg.ValidatorSet != nil {
		uses += ", the validators whose chains it stores (the subnet's registered hotkeys)"
	}
	cfg.Logger.Info("no --key: running as an observer, which neither duels nor sets weights; --chain gives it " +
		uses + " and the explorer's chain view (with --status)")
}

// chainValidators makes the node accept the chains of the hotkeys
// registered on c's subnet only (node.ChainSet), read now and kept up to
// date while it runs.
func chainValidators(ctx context.Context, cfg *node.Config, c chain.Chain) error {
	set := p2p.NewChangingSet()
	cs := node.ChainSet{Chain: c, Set: set, Logger: cfg.Logger}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := cs.Refresh(rctx); err != nil {
		return err
	}
	cfg.ValidatorSet = set
	cfg.Services = append(cfg.Services, cs)
	return nil
}

// startNotes says what an operator should know of a node that started:
// once it runs, not before an error that stops it, which would then follow
// a warning about a node that never ran. c is nil without --chain.
func startNotes(cfg *node.Config, c chain.Chain, w nodeWork) {
	switch {
	case c != nil && cfg.Key == nil && w.evaluate && w.epochs:
		observerChainNote(cfg)
	case c != nil && cfg.Key != nil:
		warnUnregistered(cfg, c)
	}
	if len(cfg.Validators) == 0 && cfg.ValidatorSet == nil {
		cfg.Logger.Warn("no validator set: this node stores every validly signed chain its peers offer, so anyone with a key can fill its disk; name the validators with --validator, or follow the subnet's registered hotkeys with --chain")
	}
}

// warnUnregistered warns when the node's hotkey holds no uid on the
// subnet: the chain then refuses its commitments and weights, every
// epoch, while the node duels and records as if all were well.
func warnUnregistered(cfg *node.Config, c chain.Chain) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := c.Metagraph(ctx)
	if err != nil {
		cfg.Logger.Warn("could not read the metagraph to check the hotkey's registration", "err", err)
		return
	}
	n, ok := m.Find(cfg.Key.Public())
	switch {
	case !ok:
		cfg.Logger.Warn("this hotkey is not registered on the subnet: the chain will refuse its commitments and weights (on the local chain: ledger chain register --hotkey ...)",
			"hotkey", cfg.Key.Public(), "netuid", m.Netuid)
	case !n.ValidatorPermit:
		cfg.Logger.Warn("this hotkey has no validator permit: its weights do not count in consensus", "hotkey", cfg.Key.Public(), "uid", n.UID)
	}
}

// chainNetuid is the subnet a node on chain c joins: the chain's. A
// --netuid that names another is refused rather than obeyed, since the
// node would then gossip on one subnet's topics while validating another.
func chainNetuid(cmd *cobra.Command, c chain.Chain, flag uint16) (uint16, error) {
	p, err := c.Params(cmd.Context())
	if err != nil {
		return 0, fmt.Errorf("--chain: read the subnet's parameters: %w", err)
	}
	if cmd.Flags().Changed("netuid") && flag != p.Netuid {
		return 0, usageError{fmt.Sprintf("--netuid %d contradicts --chain, whose subnet is %d (leave --netuid out with --chain)", flag, p.Netuid)}
	}
	return p.Netuid, nil
}

// checkNodeFlags refuses, before the node makes anything in its data
// directory, the flags it could not start with or would ignore.
func checkNodeFlags(cmd *cobra.Command, dataDir, statusAddr string, pprof bool, minerTimeout time.Duration) error {
	// Every other command takes a store directory for --data; the node
	// would make a new, empty store inside it (and its identity among the
	// store's files), and run on that.
	if d, ok := findStore(dataDir); ok && filepath.Clean(d) == filepath.Clean(dataDir) {
		return usageError{fmt.Sprintf("--data %s is a ledger store, not a node's data directory: a node keeps its store in DIR/store; give the directory that holds it (or move this store to DIR/store)", dataDir)}
	}
	if statusAddr != "" {
		if err := checkLoopback("--status", statusAddr); err != nil {
			return err
		}
	}
	if pprof && statusAddr == "" {
		return usageError{"--pprof serves profiles on the --status address; give --status too"}
	}
	if minerTimeout < 0 {
		return usageError{fmt.Sprintf("--miner-timeout %s: want a positive duration (or 0 for the inference client's default)", minerTimeout)}
	}
	// The validator's work runs only with both (nodeServices).
	if f := cmd.Flags(); f.Lookup("key").Value.String() == "" || f.Lookup("chain").Value.String() == "" {
		for _, name := range []string{"evaluate", "epochs", "chutes-api-key", "miner-timeout", "private-endpoints"} {
			if f.Changed(name) {
				return usageError{fmt.Sprintf("--%s applies to a validator's node, with --chain and --key; give both, or leave --%s out", name, name)}
			}
		}
	}
	return nil
}

func newNodeCmd() *cobra.Command {
	var (
		dataDir, keyFile, statusAddr, chainSpec, chutesKey, genesis string
		listen, peers, validators                                   []string
		netuid                                                      uint16
		mdns, evaluate, epochs, pprof, privateEndpoints             bool
		resumeSigning                                               bool
		minerTimeout                                                time.Duration
	)
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run a node: replicate validators' chains over libp2p, publish our own",
		Long: `node runs a ledger node on a data directory: it gossips new blocks and fork proofs
with its peers, backfills the chains it lacks, and verifies everything it stores
(spec/p2p.md). With --key it is the node of that validator: it binds its peer ID
to the hotkey and publishes the blocks the validator appends. Without --key it is
an observer that replicates and verifies.

The data directory holds the store (store/), the node's libp2p identity
(p2p/identity.key, created on first start, mode 0600) and status.json, which
"ledger peers" reads. List static peers with --peer on both sides: they are kept
connected and are gossipsub direct peers.

With --chain and --key the node is a working validator: it duels the miners
committed on the chain (champion against each contender, spec/validator.md),
records every exchange in its chain, re-executes its peers' blocks as they
arrive and links the outcomes from its own chain, and each epoch commits its
checkpoint on-chain, computes vTrust and sets winner-takes-all weights for the
consensus winner (spec/vtrust.md). --evaluate=false or --epochs=false turn the
two halves off. Miners that committed a chute are asked through Chutes with
--chutes-api-key.

The node joins the ledger of --chain's subnet (its gossip topics are per subnet);
without --chain, that of --netuid (default 0). A --netuid other than the chain's
is refused. Its store is bound to that network: the subnet and the chain's
genesis hash, which every block names (spec/ledger.md), so that a hotkey's blocks
on another subnet or chain are never taken for this one's. Without --chain, give
--genesis; an observer without it takes the network of the first block it stores.

--status serves /status, /metrics, /healthz and the web explorer of "ledger
serve" on a loopback address.

It runs until SIGINT or SIGTERM, then stops cleanly: nothing acknowledged is lost.` + exitCodesHelp,
		Example: `  ledger node --data ~/.ledger --key ~/.ledger/hotkey.json --listen /ip4/0.0.0.0/tcp/4001 \
      --chain subtensor+wss://entrypoint-finney.opentensor.ai:443/netuid=120 --status 127.0.0.1:8080
  ledger node --data /tmp/obs --listen /ip4/127.0.0.1/tcp/4002 \
      --peer /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW... --status 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "key", "chain", "status"); err != nil {
				return err
			}
			if err := checkNodeFlags(cmd, dataDir, statusAddr, pprof, minerTimeout); err != nil {
				return err
			}
			cfg := node.Config{DataDir: dataDir, NetUID: netuid, MDNS: mdns, StatusAddr: statusAddr,
				Logger: loggerOf(cmd)}
			if keyFile != "" {
				k, err := keys.ReadKeyFile(keyFile)
				if err != nil {
					return usageError{msg: err.Error()}
				}
				cfg.Key = k
				if resumeSigning {
					cfg.Appender = append(cfg.Appender, ledger.ResumeSigning())
				}
			} else if resumeSigning {
				return usageError{"--resume-signing applies to a validator's node: give --key"}
			}
			for _, s := range listen {
				a, err := ma.NewMultiaddr(s)
				if err != nil {
					return usageError{msg: fmt.Sprintf("--listen %q: %v", s, err)}
				}
				cfg.Listen = append(cfg.Listen, a)
			}
			for _, s := range peers {
				ai, err := peer.AddrInfoFromString(s)
				if err != nil {
					return usageError{msg: fmt.Sprintf("--peer %q: want a multiaddress ending in /p2p/<peer ID>: %v", s, err)}
				}
				cfg.Peers = append(cfg.Peers, *ai)
			}
			for _, s := range validators {
				v, err := keys.ParseSS58(s)
				if err != nil {
					return usageError{msg: fmt.Sprintf("--validator: %v", err)}
				}
				cfg.Validators = append(cfg.Validators, v)
			}
			if genesis != "" {
				g, err := parseGenesis(genesis)
				if err != nil {
					return err
				}
				cfg.Genesis = g
			}
			if cfg.Key != nil && chainSpec == "" && genesis == "" {
				return usageError{msg: "--key without --chain needs --genesis: the genesis hash of the chain whose subnet this validator's blocks are for"}
			}
			work := nodeWork{evaluate: evaluate, epochs: epochs, chutesKey: chutesKey, timeout: minerTimeout,
				publicOnly: askPublicOnly(chainSpec, privateEndpoints)}
			var c chain.Chain
			if chainSpec != "" {
				var err error
				if c, err = openChain(cmd, chainSpec); err != nil {
					return err
				}
				defer c.Close()
				if netuid, err = chainNetuid(cmd, c, netuid); err != nil {
					return err
				}
				cfg.NetUID = netuid
				g, err := c.BlockHash(cmd.Context(), 0)
				if err != nil {
					return fmt.Errorf("--chain: read the genesis hash: %w", err)
				}
				if genesis != "" && cfg.Genesis != record.Hash(g) {
					return usageError{fmt.Sprintf("--genesis %s contradicts --chain, whose genesis hash is %s (leave --genesis out with --chain)", genesis, g)}
				}
				cfg.Genesis = record.Hash(g)
				if len(cfg.Validators) == 0 {
					if err := chainValidators(cmd.Context(), &cfg, c); err != nil {
						return err
					}
				}
				if cfg.Key != nil {
					v := cfg.Key.Public()
					cfg.BeforeSigning = func(ctx context.Context, s *ledger.Store) error {
						return epoch.CheckOwnChain(ctx, c, s, v)
					}
				}
				if err := nodeServices(&cfg, c, work); err != nil {
					return err
				}
			}
			if statusAddr != "" {
				cfg.Handler = func(n *node.Node) (http.Handler, error) {
					return explorer.Handler(n.Store(), explorer.Options{Chain: c, Metrics: n.Metrics(), Pprof: pprof, Logger: cfg.Logger})
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, err := node.Start(cfg)
			if err != nil {
				return withHaltAdvice(err)
			}
			role := "observer"
			if v, ok := n.Validator(); ok {
				role = "validator " + v.String()
			}
			st, _ := n.Status()
			fmt.Fprintf(cmd.OutOrStdout(), "node %s (%s) netuid %d listening on %s\n", n.ID(), role, netuid, strings.Join(st.Addrs, " "))
			if a := n.StatusAddr(); a != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "status endpoint http://%s/status, explorer http://%s/\n", a, a)
			}
			startNotes(&cfg, c, work)
			select {
			case <-ctx.Done():
				cfg.Logger.Info("shutting down")
			case <-n.Failed():
				cfg.Logger.Error("node failed, shutting down", "err", n.Err())
			}
			if err := n.Close(); err != nil {
				return fmt.Errorf("node shutdown: %w", err)
			}
			return withHaltAdvice(n.Err())
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "data directory (required)")
	f.StringVar(&keyFile, "key", "", "validator key file (omit to run an observer)")
	f.StringArrayVar(&listen, "listen", []string{"/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"}, "multiaddress to listen on (repeatable)")
	f.StringArrayVar(&peers, "peer", nil, "static peer, /ip4/.../tcp/.../p2p/<peer ID> (repeatable)")
	f.StringArrayVar(&validators, "validator", nil, "SS58 address of a validator whose blocks to accept (repeatable; default: the hotkeys registered on --chain's subnet, or all without --chain)")
	f.StringVar(&genesis, "genesis", "", "genesis hash of the public chain (64 hex characters); with --chain, read from the chain")
	f.Uint16Var(&netuid, "netuid", 0, "subnet whose ledger to join (gossip topics are per subnet); with --chain, the chain's subnet")
	f.BoolVar(&mdns, "mdns", false, "also find peers on the local network by mDNS")
	f.StringVar(&statusAddr, "status", "", "serve GET /status and /metrics on this loopback address (e.g. 127.0.0.1:8080)")
	f.StringVar(&chainSpec, "chain", "", "chain spec (local, local+http://HOST:PORT, subtensor+wss://HOST:PORT/netuid=N); with --key, run the validator")
	f.BoolVar(&evaluate, "evaluate", true, "with --chain and --key: duel the committed miners")
	f.BoolVar(&epochs, "epochs", true, "with --chain and --key: audit peers, commit the checkpoint and set weights each epoch")
	f.StringVar(&chutesKey, "chutes-api-key", "", "bearer key for miners that committed a chute")
	f.DurationVar(&minerTimeout, "miner-timeout", 0, "bound on one request to a miner (default: the inference client's)")
	f.BoolVar(&privateEndpoints, "private-endpoints", false, "also ask miners at loopback, private and link-local addresses (on by itself with a local chain); by default a miner's endpoint must be a public address, so that it cannot point the validator at its own machine or network")
	f.BoolVar(&pprof, "pprof", false, "serve Go profiles under /debug/pprof/ on --status")
	f.BoolVar(&resumeSigning, "resume-signing", false, "with --key: sign again after a halt (a peer held a block of this validator's chain that this store did not make), once the other machine signing with the hotkey is stopped")
	cmd.MarkFlagRequired("data")
	return cmd
}

// withHaltAdvice adds to the error of a validator's node that must not
// sign (ledger.ErrHalted, epoch.ErrOwnChainBehind) what the operator can
// do about it; other errors pass unchanged.
func withHaltAdvice(err error) error {
	switch {
	case errors.Is(err, ledger.ErrHalted):
		return fmt.Errorf("%w\n\nIf this store lost blocks (a new disk, a data directory not carried over), run the node without --key until it holds the block named above, then with it again. If another machine signs with this hotkey, stop it, then start this node with --resume-signing", err)
	case errors.Is(err, epoch.ErrOwnChainBehind):
		return fmt.Errorf("%w\n\nNothing was signed. If this store lost blocks (a new disk, a data directory not carried over), run the node without --key until it holds the committed height, then with it again. If another machine signs with this hotkey, stop it; this store's chain is not the one the network holds", err)
	}
	return err
}
