package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/node"
)

func newNodeCmd() *cobra.Command {
	var (
		dataDir, keyFile, statusAddr, logLevel string
		listen, peers, validators              []string
		netuid                                 uint16
		mdns                                   bool
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

It runs until SIGINT or SIGTERM, then stops cleanly: nothing acknowledged is lost.` + exitCodesHelp,
		Example: `  ledger node --data ~/.ledger --key ~/.ledger/hotkey.json --listen /ip4/0.0.0.0/tcp/4001
  ledger node --data /tmp/obs --listen /ip4/127.0.0.1/tcp/4002 \
      --peer /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW... --status 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := node.Config{DataDir: dataDir, NetUID: netuid, MDNS: mdns, StatusAddr: statusAddr}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return usageError{msg: fmt.Sprintf("--log-level %q: want debug, info, warn or error", logLevel)}
			}
			cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			if keyFile != "" {
				k, err := keys.ReadKeyFile(keyFile)
				if err != nil {
					return usageError{msg: err.Error()}
				}
				cfg.Key = k
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
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, err := node.Start(cfg)
			if err != nil {
				return err
			}
			role := "observer"
			if v, ok := n.Validator(); ok {
				role = "validator " + v.String()
			}
			st, _ := n.Status()
			fmt.Fprintf(cmd.OutOrStdout(), "node %s (%s) netuid %d listening on %s\n", n.ID(), role, netuid, strings.Join(st.Addrs, " "))
			if a := n.StatusAddr(); a != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "status endpoint http://%s/status\n", a)
			}
			<-ctx.Done()
			fmt.Fprintln(cmd.ErrOrStderr(), "shutting down")
			if err := n.Close(); err != nil {
				return fmt.Errorf("node shutdown: %w", err)
			}
			return n.Err()
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "data directory (required)")
	f.StringVar(&keyFile, "key", "", "validator key file (omit to run an observer)")
	f.StringArrayVar(&listen, "listen", []string{"/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"}, "multiaddress to listen on (repeatable)")
	f.StringArrayVar(&peers, "peer", nil, "static peer, /ip4/.../tcp/.../p2p/<peer ID> (repeatable)")
	f.StringArrayVar(&validators, "validator", nil, "SS58 address of a validator whose blocks to accept (repeatable; default: all)")
	f.Uint16Var(&netuid, "netuid", 0, "subnet whose ledger to join (gossip topics are per subnet)")
	f.BoolVar(&mdns, "mdns", false, "also find peers on the local network by mDNS")
	f.StringVar(&statusAddr, "status", "", "serve GET /status and /metrics on this loopback address (e.g. 127.0.0.1:8080)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	cmd.MarkFlagRequired("data")
	return cmd
}
