package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/miner"
)

func newMinerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "miner",
		Short: "Run a reference miner: a chat-completions server that solves the envs",
	}
	cmd.AddCommand(newMinerServeCmd(), newMinerCommitCmd())
	return cmd
}

func newMinerServeCmd() *cobra.Command {
	var (
		listen, strategy, model, modelHash string
		seed                               uint64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve POST /v1/chat/completions and GET /v1/models with a chosen strategy",
		Long: `serve answers the project's env prompts through an OpenAI-compatible API,
so that validators can be tested against a model whose behaviour is known.

Strategies:
  perfect         solve every env
  noisy:P         solve with probability P, else a plausible wrong answer
  random          random words and numbers, ignoring the question
  slow:DURATION   solve after waiting DURATION (e.g. slow:30s)
  flaky:P         HTTP 500 with probability P per attempt, else solve
  garbage         HTTP 200 with a body that is not a chat completion
  hang            never answer; hold the request until the client gives up

Randomness is drawn from --seed and the request (its seed and messages), so
runs are reproducible. --model and --model-hash default to values derived
from the strategy (and seed); give two miners the same --model-hash to make
a copy on purpose. It runs until interrupted (SIGINT or SIGTERM).` + exitCodesHelp,
		Example: "  ledger miner serve --listen 127.0.0.1:8000 --strategy perfect\n" +
			"  ledger miner serve --listen 127.0.0.1:8001 --strategy noisy:0.7 --seed 2\n" +
			"  ledger miner serve --listen 127.0.0.1:8002 --strategy flaky:0.2 --model org/copy --model-hash <hex>",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := miner.ParseStrategy(strategy)
			if err != nil {
				return usageError{msg: err.Error()}
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageError{msg: fmt.Sprintf("--listen %s: %v", listen, err)}
			}
			srv := miner.NewServer(miner.Config{Strategy: st, Model: model, ModelHash: modelHash, Seed: seed, Solvers: miner.EnvSolvers()})
			cfg := srv.Config()
			fmt.Fprintf(cmd.OutOrStdout(), "miner %s model %s hash %s serving http://%s/v1\n", cfg.Strategy, cfg.Model, cfg.ModelHash, ln.Addr())
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := srv.Serve(ctx, ln); err != nil {
				return fmt.Errorf("miner on %s: %w", ln.Addr(), err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:8000", "address to listen on (port 0 picks a free port)")
	f.StringVar(&strategy, "strategy", "perfect", "how to answer (see above)")
	f.StringVar(&model, "model", "", "model name served (default ledger-miner/<strategy>)")
	f.StringVar(&modelHash, "model-hash", "", "model hash served as system_fingerprint and revision (default derived from strategy and seed)")
	f.Uint64Var(&seed, "seed", 0, "seed of every random choice")
	return cmd
}
