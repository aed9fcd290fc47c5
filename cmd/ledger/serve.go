package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/metrics"
)

func newServeCmd() *cobra.Command {
	var (
		dataDir, listen, chainSpec string
		pprof                      bool
		tempo                      uint64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a read-only JSON API and web explorer over a ledger store",
		Long: `serve opens a ledger store and serves, read-only, the JSON API of spec/api.md and a web
explorer over it: validators and their chains, blocks and checkpoints; transcripts with the
whole conversation, score and reason, and a download of their inclusion proof; miners with
their scores over time and their duels; each duel's win rate with its Wilson band against the
ratio to beat; the vTrust table and weights; a leaderboard of models across envs. Also
/metrics (Prometheus), /healthz, and with --pprof /debug/pprof/.

--data is a store directory or a node's data directory (its store/ is used). Any number of
readers may share a store, but not with a writer: a running node's store is refused (a
checkpoint, which the other read-only commands read, would not follow the node). Its
explorer is the node's own: "ledger node --status ADDR" serves the same pages. So the store
serve reads does not change while it serves. With --chain
the pages add on-chain commitments, stake, permits and weights.

It runs until SIGINT or SIGTERM.` + exitCodesHelp,
		Example: `  ledger serve --data ~/.ledger --listen 127.0.0.1:8080
  ledger serve --data /tmp/store --listen 127.0.0.1:0 --chain local+http://127.0.0.1:9944`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "chain"); err != nil {
				return err
			}
			if cmd.Flags().Changed("refresh") {
				return usageError{`--refresh was removed: the store serve reads cannot change while it serves (no writer opens a store beside a reader), so there was never anything to refresh; leave it out (an explorer that follows a running node is the node's own: "ledger node --status ADDR")`}
			}
			if dataDir == "" {
				return usageError{"--data is required"}
			}
			dir, err := storeDir(dataDir)
			if err != nil {
				return err
			}
			// Read-only: serving never writes (spec/api.md), so the
			// store stays as it was.
			s, err := ledger.OpenReadOnly(dir)
			if err != nil {
				return fmt.Errorf("%w (is a node running on it? its --status address serves this explorer)", err)
			}
			defer s.Close()
			opts := explorer.Options{Pprof: pprof, Tempo: tempo, Metrics: metrics.New(),
				Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))}
			if chainSpec != "" {
				c, err := chain.Open(cmd.Context(), chainSpec)
				if err != nil {
					return usageError{fmt.Sprintf("--chain: %v", err)}
				}
				defer c.Close()
				opts.Chain = c
				// The vTrust view's epochs are the chain's.
				if cmd.Flags().Changed("tempo") {
					p, err := c.Params(cmd.Context())
					if err != nil {
						return fmt.Errorf("--chain: read the subnet's parameters: %w", err)
					}
					if tempo != p.Tempo {
						return usageError{fmt.Sprintf("--tempo %d contradicts --chain, whose tempo is %d (leave --tempo out with --chain)", tempo, p.Tempo)}
					}
				}
			}
			h, err := explorer.Handler(s, opts)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageError{fmt.Sprintf("--listen %s: %v", listen, err)}
			}
			if pprof && !isLoopback(ln.Addr()) {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: --pprof on a non-loopback address exposes profiles to the network")
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
				WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
			fmt.Fprintf(cmd.OutOrStdout(), "explorer at http://%s/ (store %s)\n", ln.Addr(), dir)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return err
			case <-ctx.Done():
			}
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(shutdown); err != nil {
				return err
			}
			if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory (required)")
	f.StringVar(&listen, "listen", "127.0.0.1:8080", "address to serve on")
	f.StringVar(&chainSpec, "chain", "", "chain spec (local, local+http://HOST:PORT, subtensor+wss://HOST:PORT/netuid=N)")
	f.BoolVar(&pprof, "pprof", false, "serve Go profiles under /debug/pprof/")
	f.Uint64Var(&tempo, "tempo", 0, "epoch length in chain blocks for the vTrust view (default 360; with --chain the chain's, which it must not contradict)")
	// --refresh bounded how often the explorer's index looked for new
	// blocks, which a store no writer may open beside serve never gets.
	// Kept, hidden, so that a script still giving it is told so.
	f.String("refresh", "", "removed: serve's store does not change while it serves")
	_ = f.MarkHidden("refresh")
	return cmd
}

func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
