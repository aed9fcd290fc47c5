package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/proofs"
)

func newProveCmd() *cobra.Command {
	var dataDir, transcript, fork, out string
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Write an offline proof: a transcript's inclusion, or a fork proof",
		Long: `With --transcript, writes the proof that a transcript is in its validator's log at the
latest checkpoint (spec/proofs.md): the transcript's bytes, its leaf index, the Merkle audit
path and the signed block holding the checkpoint.

With --fork, writes the fork proof of that CID (ledger forks lists them): the record's own
DAG-CBOR bytes, both blocks one validator signed at one height, which its CID authenticates.
Standard output must then not be a terminal.

Anyone can check either with ledger verify-proof, without a store.` + outReplacedHelp + exitCodesHelp,
		Example: `  ledger prove --data ~/.ledger/store --transcript bafyrei... --out proof.json
  ledger verify-proof proof.json
  ledger prove --data ~/.ledger/store --fork bafyrei... --out fork.cbor
  ledger verify-proof --genesis <64 hex> --netuid 120 fork.cbor`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "transcript", "fork"); err != nil {
				return err
			}
			if dataDir == "" || (transcript == "") == (fork == "") {
				return usageError{"--data and one of --transcript and --fork are required"}
			}
			if fork != "" {
				return proveFork(cmd, dataDir, fork, out)
			}
			c, err := codec.ParseCID(transcript)
			if err != nil {
				return usageError{fmt.Sprintf("--transcript: %v", err)}
			}
			po, s, done, err := openProofJob(cmd, dataDir, out, ".proof-*.json")
			if err != nil {
				return err
			}
			defer done()
			p, err := verify.ProveInclusion(s, c)
			if errors.Is(err, ledger.ErrNotFound) {
				return usageError{fmt.Sprintf("transcript %s: not in this store", c)}
			}
			if err != nil {
				return proofFailed(err)
			}
			return po.write(cmd.OutOrStdout(), p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&transcript, "transcript", "", "the transcript's CID")
	f.StringVar(&fork, "fork", "", "the fork proof's CID (ledger forks lists them)")
	f.StringVar(&out, "out", "", "write the proof to FILE (default or -: standard output)")
	return cmd
}

// proveFork writes the stored fork proof fork names, exactly as stored
// (the store checked its bytes against the CID and verified it).
func proveFork(cmd *cobra.Command, dataDir, fork, out string) error {
	c, err := codec.ParseCID(fork)
	if err != nil {
		return usageError{fmt.Sprintf("--fork: %v", err)}
	}
	if (out == "" || out == stdio) && isTerminal(cmd.OutOrStdout()) {
		return usageError{"--fork: the proof is binary (DAG-CBOR) and standard output is a terminal; give --out FILE or redirect it"}
	}
	po, s, done, err := openProofJob(cmd, dataDir, out, ".proof-*.cbor")
	if err != nil {
		return err
	}
	defer done()
	p, err := s.ForkProof(c)
	var unreadable *ledger.UnreadableForkProofError
	switch {
	case errors.As(err, &unreadable):
		return fmt.Errorf("fork proof %s: stored, but it cannot be read: %w", c, unreadable.Err)
	case errors.Is(err, ledger.ErrNotFound):
		return usageError{fmt.Sprintf("--fork: no fork proof %s in this store (ledger forks lists them)", c)}
	case err != nil:
		return err
	}
	return po.writeRaw(cmd.OutOrStdout(), p.Raw)
}

func newVerifyProofCmd() *cobra.Command {
	var (
		asJSON  bool
		genesis string
		netuid  uint16
	)
	cmd := &cobra.Command{
		Use:   "verify-proof FILE",
		Short: "Check an inclusion, consistency or fork proof offline",
		Long: `Checks a proof written by ledger prove or ledger consistency (spec/proofs.md), with no
store and no network, and says which kind it is: of an inclusion or consistency proof (JSON),
the signed blocks' signatures, the transcript's CID, and the Merkle inclusion or consistency
proof against the signed checkpoints; of a fork proof (the DAG-CBOR record ledger prove --fork
writes), both blocks' signatures, one validator and height, their order and that they
differ. A fork proof of format 1, from before blocks named their network, verifies but
proves no equivocation: the check fails (exit 1) saying so.

--genesis and --netuid assert the network the proof's blocks name, or one alone its chain or
its subnet: a proof of another network, or of blocks that name none, fails, naming both.
"-" reads standard input, which must be a pipe or a redirection, not a terminal.` + exitCodesHelp,
		Example: `  ledger verify-proof proof.json
  ledger verify-proof --json consistency.json
  ledger verify-proof --genesis <64 hex> --netuid 120 fork.cbor
  ledger prove --data ~/.ledger/store --transcript bafyrei... | ledger verify-proof -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Sprintf("give one proof FILE (- for standard input), not %d arguments; see %s --help", len(args), cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := refuseEmpty(cmd, "genesis"); err != nil {
				return err
			}
			var opts verify.Options
			if err := networkFlags(cmd, genesis, netuid, &opts); err != nil {
				return err
			}
			claim := proofs.Claim{Genesis: opts.Genesis, Netuid: opts.Netuid}
			var r io.Reader = cmd.InOrStdin()
			if args[0] == stdio && isTerminal(r) {
				// Nobody types a proof: the command would wait, silently.
				return usageError{"verify-proof -: standard input is a terminal; pipe or redirect the proof into it, or name its FILE"}
			}
			if args[0] != stdio {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			p, err := proofs.ReadProof(r)
			if err != nil {
				return usageError{fmt.Sprintf("%s: %v", args[0], err)}
			}
			proved, err := proofs.VerifyProof(p)
			if err == nil {
				err = claim.Check(proved)
			}
			if asJSON {
				res := struct {
					OK     bool          `json:"ok"`
					Error  string        `json:"error,omitempty"`
					Proves proofs.Proved `json:"proves"`
				}{OK: err == nil, Proves: proved}
				if err != nil {
					res.Error = err.Error()
				}
				if werr := writeJSON(cmd.OutOrStdout(), res); werr != nil {
					return werr
				}
			}
			if err != nil {
				return checkFailed{err.Error()}
			}
			if !asJSON {
				printProved(cmd.OutOrStdout(), proved)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&genesis, "genesis", "", "assert the proof's chain: the hash of its genesis block, 64 hex (with --netuid, its whole network)")
	f.Uint16Var(&netuid, "netuid", 0, "assert the proof's subnet (with --genesis, its whole network)")
	return cmd
}

func printProved(w io.Writer, p proofs.Proved) {
	if p.Type == proofs.ForkType {
		// Only a proof of format 2 passes, and its blocks name a network.
		fmt.Fprintf(w, "ok: fork proof %s (format %d)\n    validator %s signed two blocks at height %d:\n    %s\n    %s\n",
			p.Fork, *p.Format, p.Validator, p.Height, p.Block, p.OtherBlock)
		if p.Network != nil {
			fmt.Fprintf(w, "    both of the ledger of %s:\n    it equivocated\n", proofs.DescribeNetwork(*p.Network))
		}
		return
	}
	defer func() {
		if p.Network != nil {
			fmt.Fprintf(w, "    on the ledger of %s\n", p.Network)
		}
	}()
	switch p.Type {
	case proofs.InclusionType:
		fmt.Fprintf(w, "ok: transcript %s is leaf %d of the log of %s\n    at height %d (block %s), size %d, root %s\n",
			p.Transcript, *p.Leaf, p.Validator, p.Height, p.Block, p.Checkpoint.Size, p.Checkpoint.Root)
	default:
		fmt.Fprintf(w, "ok: the log of %s at height %d (size %d, root %s)\n    is a prefix of its log at height %d (block %s, size %d, root %s)\n",
			p.Validator, *p.OlderHeight, p.OlderCheckpoint.Size, p.OlderCheckpoint.Root, p.Height, p.Block, p.Checkpoint.Size, p.Checkpoint.Root)
	}
}

// proofOut is where prove and consistency write the proof: standard
// output for no --out or "-" (as for export), else an --out file opened
// before the store is read, so that a bad --out is found at once, and
// committed once complete (outfile.go).
type proofOut struct {
	file *outFile
}

// outReplacedHelp says, in prove's and consistency's help, what becomes
// of an existing --out file.
const outReplacedHelp = `

An existing --out file is replaced, whole or not at all: the proof is written beside it and
renamed over it once complete and synced, keeping the old file's permissions; a failed
command leaves the old file as it was. A symlink is followed, even one whose target does not
exist yet (it is created, relative to the symlink's directory), and a device or a FIFO written
to.`

// openProofJob opens --out (pattern names its temporary file), then the
// store at dataDir: a bad --out fails before the store is opened. done
// closes the store and removes the temporary file unless a write
// committed it.
func openProofJob(cmd *cobra.Command, dataDir, out, pattern string) (po *proofOut, s *ledger.Store, done func(), err error) {
	po, err = openProofOut(out, pattern)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err = openExistingStore(dataDir, cmd.ErrOrStderr())
	if err != nil {
		po.discard()
		return nil, nil, nil, err
	}
	return po, s, func() { s.Close(); po.discard() }, nil
}

// openProofOut opens --out; pattern names the temporary file
// (createOut).
func openProofOut(out, pattern string) (*proofOut, error) {
	if out == "" || out == stdio {
		return &proofOut{}, nil
	}
	f, err := createOut(out, pattern, "the proof's file")
	if err != nil {
		return nil, err
	}
	return &proofOut{file: f}, nil
}

// write writes p as JSON to the file or to stdout.
func (o *proofOut) write(stdout io.Writer, p any) error {
	if o.file == nil {
		return writeJSON(stdout, p)
	}
	if err := writeJSON(o.file, p); err != nil {
		return fmt.Errorf("--out %s: %w", o.file.path, err)
	}
	return o.file.commit()
}

// writeRaw writes a proof's bytes (a fork proof record) to the file or
// to stdout.
func (o *proofOut) writeRaw(stdout io.Writer, raw []byte) error {
	if o.file == nil {
		_, err := stdout.Write(raw)
		return err
	}
	if _, err := o.file.Write(raw); err != nil {
		return fmt.Errorf("--out %s: %w", o.file.path, err)
	}
	return o.file.commit()
}

// discard removes the temporary file, if still there: after write, a
// no-op.
func (o *proofOut) discard() {
	if o.file != nil {
		o.file.discard()
	}
}

// proofFailed is err of a store that holds what a proof is asked of but
// cannot prove it (its Merkle nodes disagree with its blocks): a failed
// check of the store (exit 1), which ledger verify locates, not bad usage
// or unreadable input.
func proofFailed(err error) error {
	if errors.Is(err, ledger.ErrCorrupt) {
		return checkFailed{err.Error()}
	}
	return err
}
