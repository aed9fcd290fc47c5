package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify"
)

func newConsistencyCmd() *cobra.Command {
	var (
		dataDir, validator, out string
		from, to                uint64
	)
	cmd := &cobra.Command{
		Use:   "consistency",
		Short: "Write an offline consistency proof between two checkpoints",
		Long: `Writes the proof that a validator's log at the checkpoint of height --from is a prefix of
its log at height --to (spec/proofs.md): both signed blocks and the Merkle consistency
proof. Check it with ledger verify-proof.` + outReplacedHelp + exitCodesHelp,
		Example: `  ledger consistency --data ~/.ledger/store --validator 5Grw... --from 10 --to 250 --out c.json
  ledger verify-proof c.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || validator == "" || !cmd.Flags().Changed("from") || !cmd.Flags().Changed("to") {
				return usageError{"--data, --validator, --from and --to are required"}
			}
			v, err := keys.ParseSS58(validator)
			if err != nil {
				return usageError{fmt.Sprintf("--validator: %v", err)}
			}
			if from > to {
				return usageError{fmt.Sprintf("--from %d is above --to %d", from, to)}
			}
			po, s, done, err := openProofJob(cmd, dataDir, out, ".proof-*.json")
			if err != nil {
				return err
			}
			defer done()
			h, err := s.Head(v)
			if errors.Is(err, ledger.ErrNotFound) {
				return usageError{fmt.Sprintf("--validator: the store has no chain of validator %s", v)}
			}
			if err != nil {
				return err
			}
			if to > h.Block.Height {
				return usageError{fmt.Sprintf("--to %d is above the head of validator %s (height %d)", to, v, h.Block.Height)}
			}
			p, err := verify.ProveConsistency(s, v, from, to)
			if errors.Is(err, ledger.ErrNotFound) {
				return usageError{err.Error()}
			}
			if err != nil {
				return proofFailed(err)
			}
			return po.write(cmd.OutOrStdout(), p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&validator, "validator", "", "the validator's hotkey (SS58)")
	f.Uint64Var(&from, "from", 0, "height of the older checkpoint")
	f.Uint64Var(&to, "to", 0, "height of the newer checkpoint")
	f.StringVar(&out, "out", "", "write the proof to FILE (default or -: standard output)")
	return cmd
}
