package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/validator"
)

func newRatioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ratio",
		Short: "The champion and the ratio to beat, recomputed from ledgers (spec/validator.md)",
	}
	cmd.AddCommand(newRatioShowCmd())
	return cmd
}

// ratioReport is one validator's line of `ledger ratio show --json`; its
// field names are part of the CLI's interface.
type ratioReport struct {
	Validator keys.PublicKey `json:"validator"`
	// Height and At are the validator's head block and the chain block
	// its anchor names: the newest chain block its ledger knows of.
	Height uint64 `json:"height"`
	At     uint64 `json:"at"`
	// Champion is null before the validator's first duel.
	Champion *duel.Side `json:"champion"`
	SetPPM   uint32     `json:"set_ppm"`
	SetAt    uint64     `json:"set_at"`
	// RatioPPM is the ratio to beat in force at block At.
	RatioPPM  uint32            `json:"ratio_ppm"`
	Dethrones int               `json:"dethrones"`
	Reigns    int               `json:"reigns"`
	Duels     []validator.Entry `json:"duels"`
	Adoptions []adoptionReport  `json:"adoptions"`
}

// adoptionReport is an adoption record and what the store says of its
// source: "checked" when it holds the duel result the record names and the
// adopted frontier follows from it, "absent" when it does not hold it (an
// auditor without the peer's chain). A source that is held and does not
// give the frontier fails the check instead.
type adoptionReport struct {
	validator.Adoption
	Source string `json:"source"`
}

func newRatioShowCmd() *cobra.Command {
	var (
		dataDir, who string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Recompute each validator's champion and ratio to beat from its duel results",
		Long: `Reads every duel result in a validator's ledger, in order, checks each against the
ratio to beat in force at its start block and the champion the results before it left,
and prints the champion and the ratio to beat now (at the chain block the validator's
head block names), with every duel: its start block, champion, contender, the ratio it
was run against, the winner, the envs the contender took and the ratio a dethrone set.
Nothing but the ledger is read: the ratio is a pure function of the results and
adoption records (spec/duel.md, "Auditing it"; spec/validator.md). A duel whose champion
is not the one in force starts a reign at the floor; such duels are marked, for an
auditor to check against the chain that the champion before had left, or that the new
champion was the consensus champion the validators' weights gave (spec/validator.md,
"Following consensus"). A reign of the consensus champion starts instead from an
adoption record, which names the duel result that crowned the champion in another
validator's chain: when the store holds that result, the adopted ratio is checked
against it; otherwise the adoption is shown as "source absent".

Every validator in the store is shown unless --validator names one. A result that does
not recompute, or was run against another ratio than the one in force, fails the check.` + exitCodesHelp,
		Example: `  ledger ratio show --data ~/.ledger/store
  ledger ratio show --data ~/.ledger/store --validator 5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			only, err := onlyValidator(cmd, who)
			if err != nil {
				return err
			}
			if dataDir == "" {
				return usageError{"--data is required"}
			}
			s, err := openRatioStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			reports, err := ratioReports(s, only, duel.DefaultFrontierParams())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), reports)
			}
			if len(reports) == 0 {
				// Not an error: a node that has not yet stored a chain.
				fmt.Fprintln(cmd.ErrOrStderr(), "no chain in this store")
			}
			return printRatios(cmd.OutOrStdout(), reports)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&who, "validator", "", "only this validator's hotkey (SS58)")
	f.BoolVar(&asJSON, "json", false, "print a JSON array, one object per validator")
	return cmd
}

// openRatioStore opens, read-only, the store --data names (a store or a
// node's data directory, as for every other command).
func openRatioStore(dataDir string, w io.Writer) (*ledger.Store, error) {
	return openExistingStore(dataDir, w)
}

func ratioReports(s *ledger.Store, only *keys.PublicKey, p duel.FrontierParams) ([]ratioReport, error) {
	var vs []keys.PublicKey
	if only != nil {
		vs = []keys.PublicKey{*only}
	} else {
		for h, err := range s.Heads() {
			if err != nil {
				return nil, err
			}
			vs = append(vs, h.Block.Validator)
		}
	}
	reports := []ratioReport{}
	for _, v := range vs {
		h, err := validator.LoadHistory(s, v, p)
		switch {
		case errors.Is(err, validator.ErrHistory), errors.Is(err, duel.ErrMalformed):
			return nil, checkFailed{err.Error()}
		case err != nil:
			return nil, err
		}
		if h.Head == nil {
			return nil, usageError{fmt.Sprintf("validator %s has no ledger in this store", v)}
		}
		r := ratioReport{Validator: v, Height: h.Head.Block.Height, At: h.Head.Anchor.Number, Duels: h.Entries}
		if r.Duels == nil {
			r.Duels = []validator.Entry{}
		}
		if r.RatioPPM, err = h.Ratio(r.At); err != nil {
			return nil, checkFailed{fmt.Sprintf("validator %s: %v", v, err)}
		}
		if f := h.Frontier; f != nil {
			r.Champion, r.SetPPM, r.SetAt = &f.Champion, f.SetPPM, f.SetAt
		} else {
			r.SetPPM = p.Floor()
		}
		r.Adoptions = []adoptionReport{}
		for _, a := range h.Adoptions {
			src, err := checkAdoption(s, p, a)
			if err != nil {
				return nil, err
			}
			r.Adoptions = append(r.Adoptions, adoptionReport{Adoption: a, Source: src})
		}
		for _, e := range h.Entries {
			if e.NewReign {
				r.Reigns++
			}
			if e.Winner == duel.Contender.String() {
				r.Dethrones++
			}
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// checkAdoption checks an adoption record against its source when s holds
// it (adoptionReport.Source says what the result means).
func checkAdoption(s *ledger.Store, p duel.FrontierParams, a validator.Adoption) (string, error) {
	fail := func(err error) (string, error) {
		return "", checkFailed{fmt.Sprintf("validator %s height %d decision %d: adoption of %s: source %s: %v",
			a.Block.Validator, a.Block.Height, a.Index, a.Adopt.Champion.Hotkey, a.Adopt.Source.Cid, err)}
	}
	raw, err := s.Object(a.Adopt.Source.Cid)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return "absent", nil
	case err != nil:
		return "", err
	}
	if err := codec.CheckCID(raw, a.Adopt.Source.Cid); err != nil {
		return fail(err)
	}
	src, err := duel.Decode(raw)
	if err != nil {
		return fail(err)
	}
	if err := a.Adopt.CheckSource(p, src); err != nil {
		return fail(err)
	}
	return "checked", nil
}

func printRatios(w io.Writer, reports []ratioReport) error {
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "validator %s: head height %d, chain block %d\n", r.Validator, r.Height, r.At)
		if r.Champion == nil {
			fmt.Fprintf(w, "  no duel yet; the ratio to beat is the floor, %s\n", duel.FormatPPM(r.RatioPPM))
			continue
		}
		fmt.Fprintf(w, "  champion %s (model %s)\n", r.Champion.Hotkey, shortHex(r.Champion.ModelHash))
		fmt.Fprintf(w, "  ratio to beat %s at block %d (set to %s at block %d)\n", duel.FormatPPM(r.RatioPPM), r.At, duel.FormatPPM(r.SetPPM), r.SetAt)
		fmt.Fprintf(w, "  %d duels, %d dethrones, %d reigns\n", len(r.Duels), r.Dethrones, r.Reigns)
		for _, a := range r.Adoptions {
			fmt.Fprintf(w, "  height %d: adopted %s at %s set at block %d, from duel %s of validator %s (source %s)\n",
				a.Block.Height, a.Adopt.Champion.Hotkey.Short(), duel.FormatPPM(a.Adopt.SetPPM), a.Adopt.SetAt,
				codec.ShortCID(a.Adopt.Source.Cid), a.Adopt.From.Short(), a.Source)
		}
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "  HEIGHT\tSTART\tCHAMPION\tCONTENDER\tRATIO\tWINNER\tENVS WON\tCHALLENGES\tSET\tREIGN")
		for _, e := range r.Duels {
			set := "-"
			if e.Winner == duel.Contender.String() {
				set = duel.FormatPPM(e.After.SetPPM)
			}
			reign := ""
			switch {
			case e.Adopted != nil:
				reign = "adopted"
			case e.NewReign:
				reign = "new"
			}
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\n", e.Block.Height, e.Start.Number,
				e.Champion.Hotkey.Short(), e.Contender.Hotkey.Short(), duel.FormatPPM(e.RatioPPM), e.Winner, e.EnvsWon, e.Envs, e.Challenges, set, reign)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func shortHex(b []byte) string {
	s := hex.EncodeToString(b)
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
