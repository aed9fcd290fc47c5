package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/archive"
)

func newExportCmd() *cobra.Command {
	var dataDir, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the whole ledger to a CARv1 archive",
		Long: `Writes every chain (each block followed by the transcripts and decisions it links) and
every fork proof to a CARv1 file whose roots are the chains' head blocks (spec/verify.md,
"Archive"). Check it with ledger verify --car; load it with ledger import.` + exitCodesHelp,
		Example: "  ledger export --data ~/.ledger/store --out ledger.car",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || out == "" {
				return usageError{"--data and --out are required"}
			}
			s, err := openExistingStore(dataDir)
			if err != nil {
				return err
			}
			defer s.Close()
			// Written beside the target and renamed: a half-written
			// archive never carries the final name.
			tmp, err := os.CreateTemp(filepath.Dir(out), ".export-*.car")
			if err != nil {
				return err
			}
			defer os.Remove(tmp.Name())
			bar := newProgress(cmd.ErrOrStderr(), -1, "exporting")
			st, err := archive.Export(s, io.MultiWriter(tmp, bar))
			bar.Finish()
			if err == nil {
				err = tmp.Sync()
			}
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d chains, %d blocks, %d transcripts, %d decisions, %d fork proofs, %d bytes\n",
				out, st.Chains, st.Blocks, st.Transcripts, st.Decisions, st.ForkProofs, st.Bytes)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory")
	f.StringVar(&out, "out", "", "archive to write (FILE.car)")
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}
