package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/vtrust"
)

// observer is the auditor named in the outcomes `vtrust show` computes
// when no --as hotkey is given: a fixed key no validator holds, so that it
// audits every chain of the store.
var observer = keys.PublicKey(sha256.Sum256([]byte("ledger vtrust show observer")))

func newVtrustCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vtrust",
		Short: "Show the validators' vTrust as a ledger store sees it",
	}
	cmd.AddCommand(newVtrustShowCmd())
	return cmd
}

func newVtrustShowCmd() *cobra.Command {
	var dataDir, spec, as, champion string
	var k uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Compute an epoch's vTrust, winner and weights (spec/vtrust.md, spec/epoch.md)",
		Long: `Re-executes every transcript of the store's chains, reads the epoch's duel results and
the chain's validators, stakes and miners, and prints what vtrust.Epoch makes of them: each
validator's vTrust, the winner and the winner-takes-all weights.

--epoch K (K ≥ 1) reads the ledger blocks anchored in chain blocks [(K-1)·tempo, K·tempo);
the default is the last epoch that has ended, and before the first has ended there is nothing
to show (exit 2). --champion is the champion before the epoch (the previous epoch's winner);
without it there is none. A validator with a fork proof anchored before the epoch's end is left
out of it (spec/epoch.md) and named after the table ("equivocators" in --json).` + exitCodesHelp,
		Example: `  ledger vtrust show --data ~/.ledger --chain local+http://127.0.0.1:9944
  ledger vtrust show --data ~/.ledger/store --chain subtensor+wss://HOST:443/netuid=N --epoch 12 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "as", "champion"); err != nil {
				return err
			}
			if dataDir == "" || spec == "" {
				return usageError{"--data and --chain are required"}
			}
			if cmd.Flags().Changed("epoch") && k == 0 {
				return usageError{"--epoch 0: epochs start at 1"}
			}
			auditor := observer
			if as != "" {
				v, err := keys.ParseSS58(as)
				if err != nil {
					return usageError{fmt.Sprintf("--as: %v", err)}
				}
				auditor = v
			}
			var champ duel.Side
			if champion != "" {
				v, err := keys.ParseSS58(champion)
				if err != nil {
					return usageError{fmt.Sprintf("--champion: %v", err)}
				}
				champ.Hotkey = v
			}
			c, err := openChain(cmd, spec)
			if err != nil {
				return err
			}
			defer c.Close()
			s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			p, err := c.Params(cmd.Context())
			if err != nil {
				return err
			}
			h, err := c.Head(cmd.Context())
			if err != nil {
				return err
			}
			sched := p.Schedule()
			if !sched.Valid() {
				return fmt.Errorf("the chain reports tempo 0")
			}
			// Nothing to compute is not a failed check: usage, like
			// an --epoch the chain has not reached.
			ended := sched.Of(h.Number)
			switch {
			case k == 0 && ended == 0:
				return usageError{fmt.Sprintf("no epoch has ended yet (chain head %d, tempo %d): the first ends at block %d", h.Number, p.Tempo, epoch.Boundary(1, sched))}
			case k == 0:
				k = ended
			case k > ended && epoch.CheckEpoch(k, sched) == nil: // otherwise epoch.Compute names the overflow
				return usageError{fmt.Sprintf("--epoch %d has not ended (chain head %d, tempo %d: it ends at block %d; the last that has ended is %d)", k, h.Number, p.Tempo, epoch.Boundary(k, sched), ended)}
			}
			out, w, err := epoch.Compute(cmd.Context(), c, epoch.NewAuditor(auditor, s), k, champ)
			if errors.Is(err, epoch.ErrNoEpoch) {
				return usageError{fmt.Sprintf("--epoch %d: %v", k, err)}
			}
			if err != nil {
				return err
			}
			// The validators Compute left out: a fork proof anchored before
			// the epoch's end (spec/epoch.md).
			forked, err := epoch.Equivocators(s, w.To)
			if err != nil {
				return err
			}
			left := []keys.PublicKey{}
			for v := range forked {
				left = append(left, v)
			}
			slices.SortFunc(left, func(a, b keys.PublicKey) int { return bytes.Compare(a[:], b[:]) })
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Epoch        uint64           `json:"epoch"`
					Window       epoch.Window     `json:"window"`
					Output       vtrust.Output    `json:"output"`
					Equivocators []keys.PublicKey `json:"equivocators"`
				}{k, w, out, left})
			}
			printVtrust(cmd.OutOrStdout(), k, w, out)
			for _, v := range left {
				fmt.Fprintf(cmd.OutOrStdout(), "left out: %s (equivocated)\n", v)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&spec, "chain", "", "chain spec")
	f.Uint64Var(&k, "epoch", 0, "epoch to compute, from 1 (default: the last that has ended)")
	f.StringVar(&as, "as", "", "audit as this validator (SS58): its own chain is not re-executed")
	f.StringVar(&champion, "champion", "", "champion before the epoch (SS58 hotkey)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func printVtrust(w io.Writer, k uint64, win epoch.Window, out vtrust.Output) {
	fmt.Fprintf(w, "epoch %d (anchors %d..%d)\n", k, win.From, win.To-1)
	fmt.Fprintf(w, "%-48s %12s %10s %10s %6s %6s %6s %8s\n", "validator", "stake", "vtrust", "reexec", "agree", "fault", "votes", "standing")
	for _, t := range out.Validators {
		fmt.Fprintf(w, "%-48s %12d %10s %10s %6d %6d %6d %8d\n", t.Hotkey, t.Stake, ppm(t.VTrustPPM), ppm(t.ReexecPPM), t.Agreed, t.Faulted, t.Votes, t.Standing)
	}
	if out.Champion.Hotkey == (keys.PublicKey{}) {
		fmt.Fprintln(w, "winner: none")
	} else {
		fmt.Fprintf(w, "winner: %s\n", out.Champion.Hotkey)
	}
	for i, u := range out.Weights.UIDs {
		fmt.Fprintf(w, "weight: uid %d = %d\n", u, out.Weights.Values[i])
	}
}

func ppm(v uint32) string { return fmt.Sprintf("%d.%06d", v/vtrust.PPM, v%vtrust.PPM) }

// commitmentFailures holds the chain's validator commitments to the store
// at dataDir (`ledger verify --chain`): each one that names no block of
// the validator's chain, or one whose checkpoint differs, or that the
// chain does not consistently extend, is a failure at the committed
// height. It also returns how many commitments it held to the store, and
// the validators that committed to a chain the store does not hold: not a
// failure of the ledger (a store need not hold every chain), but the audit
// must say what it did not check; with --validator, a failure.
func commitmentFailures(cmd *cobra.Command, spec, dataDir string, only *keys.PublicKey) (fails []verify.Failure, checked int, noChain []string, err error) {
	c, err := openChain(cmd, spec)
	if err != nil {
		return nil, 0, nil, err
	}
	defer c.Close()
	s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
	if err != nil {
		return nil, 0, nil, err
	}
	defer s.Close()
	checks, err := epoch.CheckCommitments(cmd.Context(), c, s, only)
	if err != nil {
		return nil, 0, nil, err
	}
	for _, ch := range checks {
		if ch.NoChain && only == nil {
			noChain = append(noChain, ch.Validator.String())
			continue
		}
		checked++
		if !ch.OK {
			fails = append(fails, verify.Failure{
				Validator: ch.Validator.String(), Height: ch.Commitment.Height, Transcript: -1,
				Reason: fmt.Sprintf("on-chain commitment (chain block %d): %s", ch.ChainBlock, ch.Reason),
			})
		}
	}
	return fails, checked, noChain, nil
}
