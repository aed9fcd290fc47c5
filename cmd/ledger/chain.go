package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	_ "github.com/affine-ledger/ledger/chain/subtensor" // registers the subtensor backend
	"github.com/affine-ledger/ledger/keys"
)

const chainSpecHelp = `
Chain specs (--chain):
  local                               an in-process local chain (memory only)
  local+http://127.0.0.1:PORT         a "ledger chain serve" instance
  subtensor+wss://HOST:PORT/netuid=N  a Bittensor node (ws:// or wss://)`

// adminTokenFile is where "chain serve" keeps its admin token.
const adminTokenFile = "admin-token"

func newChainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chain",
		Short: "Run a local chain, or inspect a chain's subnet",
		Long: `The chain is where validators and miners meet: registrations and stake,
commitments (miners' models, validators' ledger heads), weights with
commit-reveal, and each epoch's vtrust and incentive (spec/chain.md).` + chainSpecHelp + exitCodesHelp,
	}
	cmd.AddCommand(newChainServeCmd(), newChainStatusCmd(), newChainContendersCmd(), newChainRegisterCmd())
	return cmd
}

func newChainServeCmd() *cobra.Command {
	var (
		dir, listen, genesisFile string
		blockTime                time.Duration
		tempo                    uint64
		manual                   bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a local chain and serve it over HTTP on loopback",
		Long: `serve runs the embedded local chain with its state in --dir and serves its
JSON protocol (spec/chain.md) on --listen, which must be a loopback address.
Other processes reach it with --chain local+http://ADDR.

On first start the chain is created from --genesis (a JSON file listing
hotkeys with their stake and whether they validate) or from the defaults;
--tempo and --block-time override the genesis then. Later starts resume the
chain in --dir: those flags may be left out, and one that contradicts the
chain is refused.

The admin token (for "ledger chain register" and, with --manual, block
production) is written to DIR/admin-token with mode 0600. It runs until
interrupted (SIGINT or SIGTERM).` + exitCodesHelp,
		Example: `  ledger chain serve --dir ~/.ledger/devnet --listen 127.0.0.1:9944 --genesis genesis.json
  ledger chain serve --dir /tmp/chain --listen 127.0.0.1:0 --tempo 10 --block-time 100ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				// Not a chain in memory with its admin token in the
				// working directory.
				return usageError{"--dir: give the chain's state directory"}
			}
			ln, err := listenLoopback(listen)
			if err != nil {
				return err
			}
			defer ln.Close()
			g := local.DefaultGenesis()
			if genesisFile != "" {
				data, err := readSmallFile(genesisFile, maxGenesisFileBytes)
				if err != nil {
					return usageError{msg: "--genesis: " + err.Error()}
				}
				if g, err = local.ParseGenesis(data); err != nil {
					return usageError{msg: fmt.Sprintf("--genesis %s: %v", genesisFile, err)}
				}
			}
			if cmd.Flags().Changed("tempo") {
				g.Tempo = tempo
			}
			if cmd.Flags().Changed("block-time") {
				g.BlockTime = local.Duration(blockTime)
			}
			opts := local.Options{Dir: dir, Manual: manual}
			_, err = os.Stat(filepath.Join(dir, "state.json"))
			resumed := !errors.Is(err, fs.ErrNotExist)
			if !resumed {
				opts.Genesis = &g
			}
			c, err := local.New(opts)
			if err != nil {
				return usageError{msg: err.Error()}
			}
			defer c.Close()
			if resumed {
				if err := resumeConflict(cmd, dir, c.Genesis(), g, genesisFile); err != nil {
					return err
				}
			}
			token, err := writeAdminToken(dir)
			if err != nil {
				return err
			}
			g = c.Genesis()
			fmt.Fprintf(cmd.OutOrStdout(), "local chain netuid %d tempo %d block time %s genesis %s\nserving http://%s (admin token in %s)\n",
				g.Netuid, g.Tempo, time.Duration(g.BlockTime), c.GenesisHash(), ln.Addr(), filepath.Join(dir, adminTokenFile))
			srv := &http.Server{Handler: local.NewServer(c, token), ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return fmt.Errorf("chain server on %s: %w", ln.Addr(), err)
			case <-ctx.Done():
			}
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return srv.Shutdown(shutdown)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "state directory (required)")
	f.StringVar(&listen, "listen", "127.0.0.1:9944", "loopback address to serve on (port 0 picks a free port)")
	f.StringVar(&genesisFile, "genesis", "", "genesis JSON for a new chain (spec/chain.md, Genesis)")
	f.DurationVar(&blockTime, "block-time", local.DefaultBlockTime, "time between blocks of a new chain")
	f.Uint64Var(&tempo, "tempo", local.DefaultTempo, "blocks between epochs of a new chain")
	f.BoolVar(&manual, "manual", false, "produce no blocks by time; only admin advance requests make blocks")
	cmd.MarkFlagRequired("dir")
	return cmd
}

// resumeConflict refuses the genesis flags of chain serve that contradict
// the chain already in dir, whose genesis is have: the flags set a new
// chain's genesis (want), and a chain keeps its own.
func resumeConflict(cmd *cobra.Command, dir string, have, want local.Genesis, genesisFile string) error {
	if genesisFile != "" {
		hj, _ := json.Marshal(have)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(hj, wj) {
			return usageError{fmt.Sprintf("--genesis %s: the chain in %s was made from another genesis (seed %q, tempo %d, block time %s); leave --genesis out to resume it, or give a new --dir",
				genesisFile, dir, have.Seed, have.Tempo, time.Duration(have.BlockTime))}
		}
	}
	if f := cmd.Flags().Lookup("tempo"); f.Changed && want.Tempo != have.Tempo {
		return usageError{fmt.Sprintf("--tempo %d contradicts the chain in %s, whose tempo is %d; leave --tempo out to resume it", want.Tempo, dir, have.Tempo)}
	}
	if f := cmd.Flags().Lookup("block-time"); f.Changed && want.BlockTime != have.BlockTime {
		return usageError{fmt.Sprintf("--block-time %s contradicts the chain in %s, whose block time is %s; leave --block-time out to resume it",
			time.Duration(want.BlockTime), dir, time.Duration(have.BlockTime))}
	}
	return nil
}

func listenLoopback(addr string) (net.Listener, error) {
	if err := checkLoopback("--listen", addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageError{msg: fmt.Sprintf("--listen %s: %v", addr, err)}
	}
	return ln, nil
}

// isAdminToken reports whether s can be an admin token: one word of
// printable ASCII, what writeAdminToken writes and an HTTP header carries.
func isAdminToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return s != ""
}

// writeAdminToken makes a fresh random token for this run.
func writeAdminToken(dir string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b[:])
	path := filepath.Join(dir, adminTokenFile)
	if err := os.WriteFile(path+".tmp", []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return token, nil
}

func openChain(cmd *cobra.Command, spec string) (chain.Chain, error) {
	if _, err := chain.ParseSpec(spec); err != nil {
		return nil, usageError{msg: "--chain: " + err.Error()}
	}
	return chain.Open(cmd.Context(), spec)
}

func newChainStatusCmd() *cobra.Command {
	var (
		spec   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the head, the subnet's parameters and its neurons",
		Long: `status prints the chain's head block, the subnet's parameters and every
neuron with its stake, permit and last epoch's results (u16 fixed point:
65535 is 1.0).` + chainSpecHelp + exitCodesHelp,
		Example: "  ledger chain status --chain local+http://127.0.0.1:9944 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openChain(cmd, spec)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx := cmd.Context()
			head, err := c.Head(ctx)
			if err != nil {
				return err
			}
			p, err := c.Params(ctx)
			if err != nil {
				return err
			}
			m, err := c.Metagraph(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"head": head, "params": p, "metagraph": m})
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "head %d %s\nnetuid %d tempo %d commit-reveal %v epoch %d (block %d)\n", head.Number, head.Hash, p.Netuid, p.Tempo, p.CommitReveal, m.Epoch, m.EpochBlock)
			printNeurons(out, m)
			return nil
		},
	}
	cmd.Flags().StringVar(&spec, "chain", "", "chain spec (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {head, params, metagraph}")
	cmd.MarkFlagRequired("chain")
	return cmd
}

func printNeurons(out io.Writer, m *chain.Metagraph) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "uid\thotkey\tstake\tpermit\tvtrust\tconsensus\tincentive\tdividends")
	for _, n := range m.Neurons {
		fmt.Fprintf(w, "%d\t%s\t%d\t%v\t%d\t%d\t%d\t%d\n", n.UID, n.Hotkey.SS58(), n.Stake, n.ValidatorPermit, n.ValidatorTrust, n.Consensus, n.Incentive, n.Dividends)
	}
	w.Flush()
}

func newChainContendersCmd() *cobra.Command {
	var (
		spec   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "contenders",
		Short: "List miners' commitments in queue order",
		Long: `contenders reads every commitment on the subnet and lists those of registered
miners in the order they were committed (block, then uid). The earliest
commitment of a model (its model hash, or model and revision) keeps the
credit; later ones are marked as copies.` + chainSpecHelp + exitCodesHelp,
		Example: "  ledger chain contenders --chain local+http://127.0.0.1:9944",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openChain(cmd, spec)
			if err != nil {
				return err
			}
			defer c.Close()
			m, err := c.Metagraph(cmd.Context())
			if err != nil {
				return err
			}
			cs, err := c.Commitments(cmd.Context())
			if err != nil {
				return err
			}
			queue := chain.Contenders(m, cs)
			if asJSON {
				if queue == nil {
					queue = []chain.Contender{}
				}
				return writeJSON(cmd.OutOrStdout(), queue)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "block\tuid\tmodel\trevision\twhere\tcopy of")
			for _, q := range queue {
				where := q.Commitment.Endpoint
				if q.Commitment.Chute != "" {
					where = "chute:" + q.Commitment.Chute
				}
				copyOf := "-"
				if q.CopyOf != nil {
					copyOf = fmt.Sprint(*q.CopyOf)
				}
				fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%s\t%s\n", q.Block, q.UID, q.Commitment.Model, q.Commitment.Revision, where, copyOf)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&spec, "chain", "", "chain spec (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the queue as JSON")
	cmd.MarkFlagRequired("chain")
	return cmd
}

func newChainRegisterCmd() *cobra.Command {
	var (
		spec, tokenFile, hotkey string
		stake                   uint64
		validator               bool
	)
	cmd := &cobra.Command{
		Use:   "register",
		Short: "Register a hotkey on a served local chain (admin)",
		Long: `register adds a hotkey to a "ledger chain serve" instance's subnet, or updates
its stake and validator permit, through the admin API. It prints the uid.` + exitCodesHelp,
		Example: "  ledger chain register --chain local+http://127.0.0.1:9944 --admin-token DIR/admin-token --hotkey 5Grw... --stake 1000 --validator",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := chain.ParseSpec(spec)
			if err != nil || s.Backend != "local" || s.URL == "" {
				return usageError{msg: fmt.Sprintf("--chain %q: want local+http://HOST:PORT", spec)}
			}
			hk, err := keys.ParseSS58(hotkey)
			if err != nil {
				return usageError{msg: "--hotkey: " + err.Error()}
			}
			raw, err := readSmallFile(tokenFile, maxTokenFileBytes)
			if err != nil {
				return usageError{msg: "--admin-token: " + err.Error()}
			}
			token := strings.TrimSpace(string(raw))
			if !isAdminToken(token) {
				return usageError{msg: fmt.Sprintf("--admin-token %s: holds no admin token (one word on one line); give the file DIR/%s that \"ledger chain serve --dir DIR\" writes", tokenFile, adminTokenFile)}
			}
			c, err := local.Dial(cmd.Context(), s.URL)
			if err != nil {
				return err
			}
			defer c.Close()
			uid, err := c.Register(cmd.Context(), token, local.RegisterRequest{Hotkey: hk, Stake: stake, Validator: validator})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "uid %d %s stake %d validator %v\n", uid, hk, stake, validator)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec, "chain", "", "local+http://HOST:PORT of the chain (required)")
	f.StringVar(&tokenFile, "admin-token", "", "file holding the admin token (DIR/admin-token of the server; required)")
	f.StringVar(&hotkey, "hotkey", "", "SS58 address to register (required)")
	f.Uint64Var(&stake, "stake", 0, "stake")
	f.BoolVar(&validator, "validator", false, "give the hotkey a validator permit")
	for _, name := range []string{"chain", "admin-token", "hotkey"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

// newMinerCommitCmd is "ledger miner commit": it belongs in the miner
// command group (cmd/ledger/miner.go).
func newMinerCommitCmd() *cobra.Command {
	var (
		spec, keyFile, model, revision, endpoint, chute, modelHash string
		asJSON                                                     bool
	)
	cmd := &cobra.Command{
		Use:   "commit",
		Short: "Commit the model this miner serves to the chain",
		Long: `commit announces, signed by the miner's hotkey, which model the miner serves
and where validators can query it: a Chutes chute id or an OpenAI-compatible
endpoint URL. The commitment replaces the hotkey's previous one and moves it
to the back of the contender queue; among commitments of the same model (the
--model-hash if given, else model and revision) the earliest keeps the
credit. Encoding: spec/chain.md, "Commitments". On Bittensor each call uses
at least 100 of the hotkey's 3100 bytes of commitment space per epoch.` + chainSpecHelp + exitCodesHelp,
		Example: `  ledger miner commit --chain local+http://127.0.0.1:9944 --key miner.json --model org/model --revision 0123abcd --endpoint http://127.0.0.1:8000/v1
  ledger miner commit --chain subtensor+wss://entrypoint-finney.opentensor.ai:443/netuid=120 --key miner.json --model org/model --revision main --chute 3f2a9c1e-0d4b-4c55-9a7e-1b2c3d4e5f60 --model-hash <64 hex>`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "key"); err != nil {
				return err
			}
			mc := chain.MinerCommitment{Model: model, Revision: revision, Endpoint: endpoint, Chute: chute}
			if modelHash != "" {
				h, err := hex.DecodeString(modelHash)
				if err != nil || len(h) != 32 {
					return usageError{msg: fmt.Sprintf("--model-hash %q: want 64 hex characters", modelHash)}
				}
				mc.ModelHash = h
			}
			fields, err := mc.Fields()
			if err != nil {
				return usageError{msg: "commitment: " + err.Error()}
			}
			k, err := keys.ReadKeyFile(keyFile)
			if err != nil {
				return usageError{msg: err.Error()}
			}
			c, err := openChain(cmd, spec)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.SetCommitment(cmd.Context(), k, fields); err != nil {
				if errors.Is(err, chain.ErrNotRegistered) {
					err = fmt.Errorf("%w; register the hotkey first (on a served local chain: ledger chain register; on Bittensor: btcli subnet register)", err)
				}
				return fmt.Errorf("commit %s@%s as %s: %w", model, revision, k.Public(), err)
			}
			got, err := c.Commitment(cmd.Context(), k.Public())
			if err != nil {
				return fmt.Errorf("reading the commitment back: %w", err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"hotkey": k.Public(), "block": got.Block, "commitment": mc, "fields": got.Fields})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "committed %s@%s for %s at block %d (%d bytes of commitment space)\n", model, revision, k.Public(), got.Block, chain.SpaceCost(fields))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec, "chain", "", "chain spec (required)")
	f.StringVar(&keyFile, "key", "", "the miner's hotkey file (required)")
	f.StringVar(&model, "model", "", "model name, e.g. org/name (required)")
	f.StringVar(&revision, "revision", "", "model revision, e.g. a commit hash (required)")
	f.StringVar(&endpoint, "endpoint", "", "OpenAI-compatible base URL (http or https); or --chute")
	f.StringVar(&chute, "chute", "", "Chutes chute id; or --endpoint")
	f.StringVar(&modelHash, "model-hash", "", "hash of the model's weights, 64 hex characters")
	f.BoolVar(&asJSON, "json", false, "print JSON: {hotkey, block, commitment, fields}")
	for _, name := range []string{"chain", "key", "model", "revision"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.MarkFlagsMutuallyExclusive("endpoint", "chute")
	cmd.MarkFlagsOneRequired("endpoint", "chute")
	return cmd
}
