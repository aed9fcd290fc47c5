package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/ipfs/go-cid"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// forkRow is one row of `ledger forks`; the JSON names are part of the
// CLI's interface, and those it shares with the explorer's ForkRow
// (spec/api.md) mean the same.
type forkRow struct {
	CID       string         `json:"cid"`
	Validator keys.PublicKey `json:"validator"`
	Height    uint64         `json:"height"`
	// A and B are the two blocks' CIDs, in the proof's (CID) order.
	A string `json:"a"`
	B string `json:"b"`
	// Format is the proof's, 0 for one the store cannot read.
	Format uint64 `json:"format"`
	// Network is the one both blocks name; absent for format 1, whose
	// blocks name none.
	Network *record.Network `json:"network,omitempty"`
	// Valid is false only for a proof the store cannot read (Error says
	// why): the store verifies the others as it reads them.
	Valid              bool   `json:"valid"`
	ProvesEquivocation bool   `json:"proves_equivocation"`
	Error              string `json:"error,omitempty"`
}

func newForksCmd() *cobra.Command {
	var (
		dataDir, validator string
		asJSON             bool
	)
	cmd := &cobra.Command{
		Use:   "forks",
		Short: "List the store's fork proofs",
		Long: `Lists every fork proof the store holds, by validator then height: its CID, the validator,
the height, the two signed blocks' CIDs, the proof's format and network, and whether it
proves equivocation (format 2, whose blocks name one network; a proof of format 1, from a
store written before block format 2, names none and proves nothing). Export one with
ledger prove --fork CID; check it with ledger verify-proof.

A proof the store cannot read is listed as unreadable, why on standard error (in the JSON,
"valid": false and "error"), and fails the command (exit 1) once all are listed; ledger
verify says more.` + exitCodesHelp,
		Example: `  ledger forks --data ~/.ledger/store
  ledger forks --data ~/.ledger/store --validator 5Grw... --json
  ledger prove --data ~/.ledger/store --fork bafyrei... --out fork.cbor`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			only, err := onlyValidator(cmd, validator)
			if err != nil {
				return err
			}
			if dataDir == "" {
				return usageError{"--data is required"}
			}
			s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			rows, unreadable, err := forkRows(s, only)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), struct {
					ForkProofs []forkRow `json:"fork_proofs"`
				}{rows}); err != nil {
					return err
				}
			} else {
				if len(rows) == 0 {
					what := "no fork proofs in this store"
					if only != nil {
						what = fmt.Sprintf("no fork proofs of validator %s in this store", *only)
					}
					fmt.Fprintln(cmd.ErrOrStderr(), what)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, "CID\tVALIDATOR\tHEIGHT\tFORMAT\tNETWORK\tEQUIVOCATION\tBLOCK A\tBLOCK B")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.CID, r.Validator, r.Height, r.Format, rowNetwork(r), rowVerdict(r), r.A, r.B)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				for _, r := range rows {
					if !r.Valid {
						fmt.Fprintf(cmd.ErrOrStderr(), "fork proof %s of %s at height %d: %s\n", r.CID, r.Validator, r.Height, r.Error)
					}
				}
			}
			if unreadable > 0 {
				return checkFailed{fmt.Sprintf("%d of %d fork proofs cannot be read (see their error); ledger verify --data %s checks the store", unreadable, len(rows), dataDir)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&validator, "validator", "", "only this validator's fork proofs (SS58 hotkey)")
	f.BoolVar(&asJSON, "json", false, `print one JSON object, {"fork_proofs": [...]}`)
	return cmd
}

// forkRows lists the store's fork proofs, of validator only if set, and
// counts those it cannot read.
func forkRows(s *ledger.Store, only *keys.PublicKey) ([]forkRow, int, error) {
	rows := []forkRow{}
	unreadable := 0
	for p, err := range s.ForkProofs() {
		var bad *ledger.UnreadableForkProofError
		if err != nil && !errors.As(err, &bad) {
			return nil, 0, err
		}
		if bad != nil {
			if only != nil && bad.Validator != *only {
				continue
			}
			unreadable++
			rows = append(rows, forkRow{CID: cidText(bad.CID), Validator: bad.Validator, Height: bad.Height, Error: bad.Err.Error()})
			continue
		}
		if only != nil && p.Validator != *only {
			continue
		}
		r := forkRow{CID: p.CID.String(), Validator: p.Validator, Height: p.Height, A: codec.Sum(p.A).String(), B: codec.Sum(p.B).String(),
			Format: p.Format, Valid: true, ProvesEquivocation: p.ProvesEquivocation()}
		if n, err := p.Network(); err == nil {
			r.Network = &n
		}
		rows = append(rows, r)
	}
	return rows, unreadable, nil
}

func cidText(c cid.Cid) string {
	if !c.Defined() {
		return ""
	}
	return c.String()
}

func rowNetwork(r forkRow) string {
	switch {
	case r.Network != nil:
		return r.Network.String()
	case r.Valid:
		return "none (format 1)"
	}
	return "-"
}

func rowVerdict(r forkRow) string {
	switch {
	case !r.Valid:
		return "unreadable"
	case r.ProvesEquivocation:
		return "yes"
	}
	return "no (names no network)"
}
