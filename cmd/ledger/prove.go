package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ipfs/go-cid"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/proofs"
)

func newProveCmd() *cobra.Command {
	var dataDir, transcript, out string
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Write an offline inclusion proof of a transcript",
		Long: `Writes the proof that a transcript is in its validator's log at the latest checkpoint
(spec/proofs.md): the transcript's bytes, its leaf index, the Merkle audit path and the
signed block holding the checkpoint. Anyone can check it with ledger verify-proof, without
a store.` + outReplacedHelp + exitCodesHelp,
		Example: `  ledger prove --data ~/.ledger/store --transcript bafyrei... --out proof.json
  ledger verify-proof proof.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || transcript == "" {
				return usageError{"--data and --transcript are required"}
			}
			c, err := cid.Decode(transcript)
			if err != nil {
				return usageError{fmt.Sprintf("--transcript: %v", err)}
			}
			po, err := openProofOut(out)
			if err != nil {
				return err
			}
			defer po.discard()
			s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			p, err := verify.ProveInclusion(s, c)
			if errors.Is(err, ledger.ErrNotFound) {
				return usageError{fmt.Sprintf("transcript %s: not in this store", c)}
			}
			if err != nil {
				return err
			}
			return po.write(cmd.OutOrStdout(), p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&transcript, "transcript", "", "the transcript's CID")
	f.StringVar(&out, "out", "", "write the proof to FILE (default or -: standard output)")
	return cmd
}

func newVerifyProofCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify-proof FILE",
		Short: "Check an inclusion or consistency proof offline",
		Long: `Checks a proof written by ledger prove or ledger consistency (spec/proofs.md), with no
store and no network: the signed blocks' signatures, the transcript's CID, and the Merkle
inclusion or consistency proof against the signed checkpoints. "-" reads standard input,
which must be a pipe or a redirection, not a terminal.` + exitCodesHelp,
		Example: "  ledger verify-proof proof.json\n  ledger verify-proof --json consistency.json\n  ledger prove --data ~/.ledger/store --transcript bafyrei... | ledger verify-proof -",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Sprintf("give one proof FILE (- for standard input), not %d arguments; see %s --help", len(args), cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printProved(w io.Writer, p proofs.Proved) {
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
command leaves the old file as it was. A symlink is followed, and a device or a FIFO written
to.`

func openProofOut(out string) (*proofOut, error) {
	if out == "" || out == stdio {
		return &proofOut{}, nil
	}
	f, err := createOut(out, ".proof-*.json", "the proof's file")
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

// discard removes the temporary file, if still there: after write, a
// no-op.
func (o *proofOut) discard() {
	if o.file != nil {
		o.file.discard()
	}
}
