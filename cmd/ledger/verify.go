package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

func newVerifyCmd() *cobra.Command {
	var (
		dataDir, carFile, validator, chainSpec, genesis string
		from                                            uint64
		netuid                                          uint16
		asJSON, noReexec, strict                        bool
	)
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Audit every chain of a ledger store or archive",
		Long: `Checks every validator's chain (spec/verify.md): block signatures, heights, previous
links, time and anchor order, checkpoints (sizes and Merkle roots recomputed from the
transcripts), every transcript and decision against its CID, challenge-ID uniqueness per
validator, challenge seeds against the recorded anchors, and (unless --no-reexec) the
re-execution of every transcript through its environment: the regenerated prompt, every
observation, every reward and the reason must be what was recorded. Recorded fork proofs
(a validator signing two blocks at one height) are reported as failures; with --validator,
only that validator's. A fork proof of format 1, which a ledger written before block format
2 may hold, is checked and counted but fails no one: its blocks name no network, so they may
be the validator's on two networks.

A ledger is of one network, a subnet of one chain, which every block of format 2 names
(format-1 blocks, written before, name none): a block or fork proof of another is a
failure. The network is the store's recorded one, else the first such block's; --genesis
and --netuid assert it, or one alone its chain or its subnet. The summary names it.

It streams: memory stays flat however large the ledger. The first failure of each chain is
reported with validator, height, block CID, transcript index and reason.` + exitCodesHelp,
		Example: `  ledger verify --data ~/.ledger/store
  ledger verify --data ~/.ledger/store --validator 5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY --from 1200 --json
  ledger verify --car ledger.car --no-reexec
  ledger verify --data ~/.ledger/store --netuid 120 --genesis <64 hex>
  ssh validator ledger export --data /srv/ledger --out - | ledger verify --car -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "chain", "validator", "genesis"); err != nil {
				return err
			}
			if (dataDir == "") == (carFile == "") {
				return usageError{"give exactly one of --data DIR and --car FILE"}
			}
			scope := verify.StoreScope{From: from}
			if validator != "" {
				v, err := keys.ParseSS58(validator)
				if err != nil {
					return usageError{fmt.Sprintf("--validator: %v", err)}
				}
				scope.Validator = &v
			}
			if carFile != "" && chainSpec != "" {
				return usageError{"--chain applies to --data only"}
			}
			if carFile != "" && (scope.Validator != nil || from != 0) {
				return usageError{"--validator and --from apply to --data only: an archive is verified whole"}
			}
			var chainNet record.Network
			if chainSpec != "" {
				// A chain that cannot be reached is found before the
				// audit, which can take hours, not after it with its
				// result thrown away. It is opened again for the check:
				// a connection left idle through the audit might not
				// survive it.
				c, err := openChain(cmd, chainSpec)
				if err != nil {
					return err
				}
				chainNet, err = networkOfChain(cmd, c)
				c.Close()
				if err != nil {
					return err
				}
			}
			set, closeSet, err := newChallengeSet(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeSet()
			opts := verify.Options{Reexecute: !noReexec, StrictSeeds: strict, Challenges: set}
			if err := networkFlags(cmd, genesis, netuid, &opts); err != nil {
				return err
			}
			if err := assertChainNetwork(chainNet, &opts); err != nil {
				return err
			}
			var rep verify.Report
			if carFile != "" {
				rep, err = verifyArchiveFile(cmd, carFile, opts)
			} else {
				// One snapshot for the audit and the commitments: a
				// running node's is a checkpoint (readableStore).
				if err := checkDataDir(dataDir); err != nil {
					return err
				}
				dir, release, rerr := readableStore(dataDir, cmd.ErrOrStderr())
				if rerr != nil {
					return rerr
				}
				defer release()
				dataDir = dir
				rep, err = verifyStoreDir(dir, scope, opts, cmd.ErrOrStderr())
			}
			if err != nil {
				return err
			}
			if chainSpec != "" {
				fails, n, noChain, err := commitmentFailures(cmd, chainSpec, dataDir, scope.Validator)
				if err != nil {
					return err
				}
				rep.Failures = append(rep.Failures, fails...)
				rep.OK = rep.OK && len(fails) == 0
				rep.Commitments = &n
				rep.CommitmentsWithoutChain = noChain
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "%d on-chain commitments checked, %d do not match the ledger\n", n, len(fails))
					if len(noChain) > 0 {
						fmt.Fprintf(cmd.OutOrStdout(), "on-chain commitments not checked, the store holds no chain of: %s\n", strings.Join(noChain, ", "))
					}
				}
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printVerifyReport(cmd.OutOrStdout(), rep)
			}
			if !rep.OK {
				return checkFailed{"verify: " + plural(len(rep.Failures), "failure")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&carFile, "car", "", "archive written by ledger export (- for standard input)")
	f.StringVar(&chainSpec, "chain", "", "also hold every validator's on-chain commitment to its chain in the store")
	f.StringVar(&validator, "validator", "", "verify only this validator's chain (SS58 hotkey)")
	f.Uint64Var(&from, "from", 0, "first height to verify (the state before it comes from the signed block below); chains that end below it are listed, not checked; above every head is a usage error")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	f.BoolVar(&noReexec, "no-reexec", false, "skip re-executing transcripts through their environments")
	f.StringVar(&genesis, "genesis", "", "assert the ledger's chain: the hash of its genesis block, 64 hex (with --netuid, its whole network)")
	f.Uint16Var(&netuid, "netuid", 0, "assert the ledger's subnet (with --genesis, its whole network)")
	f.BoolVar(&strict, "strict-seeds", false, "fail format-1 transcripts whose seed no recorded anchor derives (format 2 records its seed and is always checked exactly)")
	return cmd
}

// networkFlags sets the network the auditor asserts from --genesis and
// --netuid, each if given: both name a network, one alone a part of it.
func networkFlags(cmd *cobra.Command, genesis string, netuid uint16, opts *verify.Options) error {
	if cmd.Flags().Changed("netuid") {
		opts.Netuid = &netuid
	}
	if !cmd.Flags().Changed("genesis") {
		return nil
	}
	h, err := parseGenesis(genesis)
	if err != nil {
		return err
	}
	opts.Genesis = &h
	return nil
}

// networkOfChain is the network of the ledger whose commitments chain c
// holds: its subnet and genesis hash.
func networkOfChain(cmd *cobra.Command, c chain.Chain) (record.Network, error) {
	p, err := c.Params(cmd.Context())
	if err != nil {
		return record.Network{}, fmt.Errorf("--chain: read the subnet's parameters: %w", err)
	}
	g, err := c.BlockHash(cmd.Context(), 0)
	if err != nil {
		return record.Network{}, fmt.Errorf("--chain: read the genesis hash: %w", err)
	}
	return record.Network{Genesis: record.Hash(g), Netuid: p.Netuid}, nil
}

// assertChainNetwork makes the audit assert --chain's network, whose
// commitments it holds the ledger to, unless --genesis or --netuid
// already assert a part of it; a part that contradicts it is bad usage.
func assertChainNetwork(n record.Network, opts *verify.Options) error {
	if n.IsZero() {
		return nil
	}
	if opts.Genesis != nil && *opts.Genesis != n.Genesis {
		return usageError{fmt.Sprintf("--genesis %s contradicts --chain, whose genesis hash is %s", *opts.Genesis, n.Genesis)}
	}
	if opts.Netuid != nil && *opts.Netuid != n.Netuid {
		return usageError{fmt.Sprintf("--netuid %d contradicts --chain, whose subnet is %d", *opts.Netuid, n.Netuid)}
	}
	opts.Genesis, opts.Netuid = &n.Genesis, &n.Netuid
	return nil
}

// verifyStoreDir audits the store at dir, a store directory the caller
// holds (readableStore). A store the ledger package
// refuses to open because its data disagrees with itself is a failed
// check (exit 1), not unreadable input.
func verifyStoreDir(dir string, scope verify.StoreScope, opts verify.Options, stderr io.Writer) (verify.Report, error) {
	// The files first: damage Pebble itself would read as a torn tail
	// (and drop) or in blocks the audit never reads is found here.
	torn, err := verify.CheckFiles(dir)
	if errors.Is(err, verify.ErrDamagedFile) {
		return verify.Report{Failures: []verify.Failure{{Transcript: -1, Reason: err.Error()}}}, nil
	}
	s, err := verify.OpenStore(dir)
	if errors.Is(err, ledger.ErrCorrupt) {
		return verify.Report{Failures: []verify.Failure{{Transcript: -1, Reason: err.Error()}}}, nil
	}
	if err != nil {
		return verify.Report{}, err
	}
	defer s.Close()
	heads, err := verify.StoreHeads(s, scope)
	if errors.Is(err, ledger.ErrNotFound) {
		return verify.Report{}, usageError{err.Error()}
	}
	if err != nil {
		return verify.Report{}, err
	}
	if len(heads) == 0 && !holdsForkProofs(s) {
		// Not a clean audit of nothing (spec/verify.md), as --from past
		// every head is not.
		return verify.Report{}, usageError{fmt.Sprintf("the store %s holds no chain: there is nothing to audit", dir)}
	}
	if err := checkFrom(heads, scope.From); err != nil {
		return verify.Report{}, err
	}
	var total int64
	for _, h := range heads {
		if h.Height >= scope.From {
			total += int64(h.Height - scope.From + 1)
		}
	}
	bar := newProgress(stderr, total, "verifying blocks")
	opts.Progress = func(blocks int, _ int64) { bar.Set64(int64(blocks)) }
	rep, err := verify.VerifyStore(s, heads, scope, opts)
	bar.Finish()
	rep.TornLog = torn
	return rep, err
}

// checkFrom refuses a --from no selected chain reaches: it would verify
// nothing and report a clean audit of no chain. It names the highest head.
func checkFrom(heads []verify.ChainHead, from uint64) error {
	if from == 0 {
		return nil
	}
	var top *verify.ChainHead
	for i, h := range heads {
		if h.Height >= from {
			return nil
		}
		if top == nil || h.Height > top.Height {
			top = &heads[i]
		}
	}
	if top == nil {
		return usageError{fmt.Sprintf("--from %d: the store holds no chain", from)}
	}
	if len(heads) == 1 {
		return usageError{fmt.Sprintf("--from %d is above the head of validator %s (height %d)", from, top.Validator, top.Height)}
	}
	return usageError{fmt.Sprintf("--from %d is above every head of the %d chains (the highest: validator %s, height %d)", from, len(heads), top.Validator, top.Height)}
}

func verifyArchiveFile(cmd *cobra.Command, path string, opts verify.Options) (verify.Report, error) {
	in, size, err := openInput(cmd, path)
	if err != nil {
		return verify.Report{}, err
	}
	defer in.Close()
	bar := newProgress(cmd.ErrOrStderr(), size, "verifying archive")
	opts.Progress = func(_ int, bytes int64) { bar.Set64(bytes) }
	rep, err := verify.VerifyCAR(in, opts)
	bar.Finish()
	if err != nil {
		return verify.Report{}, fmt.Errorf("%s: %w", displayName(path, "standard input"), err)
	}
	return rep, nil
}

// openExistingStore opens, read-only (verify.OpenStore), the store --data
// names: a store or a node's data directory; it must exist. A running
// node's store is read through a checkpoint (readableStore), of which a
// note goes to w.
func openExistingStore(dataDir string, w io.Writer, opts ...ledger.Option) (*ledger.Store, error) {
	if err := checkDataDir(dataDir); err != nil {
		return nil, err
	}
	dir, release, err := readableStore(dataDir, w)
	if err != nil {
		return nil, err
	}
	s, err := verify.OpenStore(dir, append(opts, ledger.WithOnClose(release))...)
	if err != nil {
		release()
		return nil, err
	}
	return s, nil
}

// checkDataDir refuses a --data that is not a directory.
func checkDataDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return usageError{fmt.Sprintf("--data: %v", err)}
	}
	if !st.IsDir() {
		return usageError{fmt.Sprintf("--data %s is not a directory", dir)}
	}
	return nil
}

// newProgress draws a bar on a terminal and nothing in a pipe or file.
func newProgress(w io.Writer, total int64, what string) *progressbar.ProgressBar {
	f, ok := w.(*os.File)
	return progressBar(w, total, what, ok && term.IsTerminal(int(f.Fd())))
}

// progressBar is newProgress's bar, drawn only if visible. It starts no
// goroutine: the library's spinner ticker (for a total of -1, unknown)
// reads the bar's state without the bar's lock, a data race with every
// Add that the race detector caught in CI, on export.
func progressBar(w io.Writer, total int64, what string, visible bool) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total,
		progressbar.OptionSetVisibility(visible),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
}

func printVerifyReport(w io.Writer, r verify.Report) {
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	fmt.Fprintf(w, "%s: %s, %s, %s, %s in %.2f s\n", status, plural(r.Chains, "chain"), plural(r.Blocks, "block"),
		plural(r.Transcripts, "transcript"), plural(int(r.Bytes), "byte"), r.Seconds)
	if r.TornLog != nil {
		fmt.Fprintf(w, "note: %s\n", r.TornLog)
	}
	if len(r.BelowFrom) > 0 {
		fmt.Fprintf(w, "not checked: %s below --from: %s\n", chainsEnd(len(r.BelowFrom)), belowFrom(r.BelowFrom))
	}
	if r.Network != nil {
		fmt.Fprintf(w, "network: netuid %d of the chain of genesis hash %s\n", r.Network.Netuid, r.Network.Genesis)
	} else {
		fmt.Fprintln(w, "network: none named (no block of format 2)")
	}
	fmt.Fprintf(w, "re-executed %d transcripts; seeds checked exactly %d, format-1 seeds derived from recorded anchors %d, not derivable %d; fork proofs %d\n",
		r.Reexecuted, r.SeedsExact, r.SeedsDerived, r.SeedsUnverified, r.ForkProofs)
	if r.ForkProofsNotEvidence > 0 {
		fmt.Fprintf(w, "fork proofs of format 1 %d: validly signed blocks at one height that name no network, so no evidence of equivocation\n", r.ForkProofsNotEvidence)
	}
	fmt.Fprintf(w, "duel results %d: outcomes held to the chains' transcripts %d, without both transcripts in the audited chain %d\n",
		r.DuelResults, r.OutcomesChecked, r.OutcomesUnbacked)
	for _, f := range r.Failures {
		fmt.Fprintln(w, "FAIL", f)
	}
}

// chainsEnd is "1 chain ends" or "N chains end".
func chainsEnd(n int) string {
	if n == 1 {
		return "1 chain ends"
	}
	return fmt.Sprintf("%d chains end", n)
}

// belowFrom lists chains that end below --from by validator and head.
func belowFrom(ends []verify.ChainEnd) string {
	parts := make([]string, len(ends))
	for i, e := range ends {
		parts[i] = fmt.Sprintf("validator %s (head at height %d)", e.Validator, e.Height)
	}
	return strings.Join(parts, ", ")
}

// holdsForkProofs reports whether s lists any fork proof, readable or not.
func holdsForkProofs(s *ledger.Store) bool {
	for range s.ForkProofs() {
		return true
	}
	return false
}
