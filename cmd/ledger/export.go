package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/ledger"
)

func newExportCmd() *cobra.Command {
	var dataDir, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the whole ledger to a CARv1 archive",
		Long: `Writes every chain (each block followed by the transcripts and decisions it links) and
every fork proof to a CARv1 file whose roots are the chains' head blocks (spec/verify.md,
"Archive"). Check it with ledger verify --car; load it with ledger import. Every object is
checked against its CID as it is written: a damaged one fails the export (exit 1), naming it,
and no archive is written.

--json prints {"chains", "blocks", "transcripts", "decisions", "fork_proofs", "bytes"}, where
bytes is the archive's length (as the file's size); ledger import and verify --car count the
records' bytes of the same archive, which leave out its header, section lengths and CIDs.

An existing --out file is replaced, whole or not at all: the archive is written beside it and
renamed over it once complete and synced, keeping the old file's permissions; a failed export
leaves the old file as it was. A symlink is followed, even one whose target does not exist yet
(it is created, relative to the symlink's directory), and a device or a FIFO written to.` + exitCodesHelp,
		Example: `  ledger export --data ~/.ledger/store --out ledger.car
  ledger export --data ~/.ledger/store --out - | ledger verify --car -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || out == "" {
				return usageError{"--data and --out are required"}
			}
			toStdout := out == stdio
			if toStdout && asJSON {
				return usageError{"--json prints to standard output, which --out - fills with the archive"}
			}
			if toStdout && isTerminal(cmd.OutOrStdout()) {
				return usageError{"--out -: standard output is a terminal; redirect it to a file or a pipe"}
			}
			var file *outFile
			if !toStdout {
				// Before the ledger is read: a bad --out is found at once.
				var err error
				if file, err = createOut(out, ".export-*.car", "the archive's file"); err != nil {
					return err
				}
				defer file.discard()
			}
			s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			var st archive.Stats
			if toStdout {
				st, err = exportTo(cmd, s, cmd.OutOrStdout())
			} else {
				st, err = exportFile(cmd, s, file)
			}
			if errors.Is(err, ledger.ErrCorrupt) {
				// The store is damaged: a check failed, and no archive
				// was written (to a pipe: one cut short).
				return checkFailed{fmt.Sprintf("%v; no archive written: ledger verify --data %s checks the store", err, dataDir)}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			// With --out -, standard output is the archive's.
			summary := cmd.OutOrStdout()
			if toStdout {
				summary = cmd.ErrOrStderr()
			}
			fmt.Fprintf(summary, "wrote %s: %s, %s\n", displayName(out, "standard output"), archiveCounts(st), plural(int(st.Bytes), "byte"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&out, "out", "", "archive to write (FILE.car, - for standard output)")
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON (bytes: the archive's length)")
	return cmd
}

// exportFile writes the archive to f and commits it: a half-written
// archive never carries the final name.
func exportFile(cmd *cobra.Command, s *ledger.Store, f *outFile) (archive.Stats, error) {
	st, err := exportTo(cmd, s, f)
	if err != nil {
		return st, err
	}
	return st, f.commit()
}

// exportTo writes the archive to w. Into a pipe, a failed export leaves
// the reader an archive cut short; the exit status says so (a shell sees
// it with set -o pipefail).
func exportTo(cmd *cobra.Command, s *ledger.Store, w io.Writer) (archive.Stats, error) {
	bar := newProgress(cmd.ErrOrStderr(), -1, "exporting")
	st, err := archive.Export(s, io.MultiWriter(w, bar))
	bar.Finish()
	return st, err
}
