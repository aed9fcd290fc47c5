package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

func newWeightsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "weights",
		Short: "Show the weights in effect on the chain",
	}
	cmd.AddCommand(newWeightsShowCmd())
	return cmd
}

// weightRow is one validator's weights with the hotkeys of the uids.
type weightRow struct {
	UID     uint16           `json:"uid"`
	Hotkey  keys.PublicKey   `json:"hotkey"`
	UIDs    []uint16         `json:"uids"`
	Hotkeys []keys.PublicKey `json:"hotkeys"`
	Values  []uint16         `json:"values"`
}

func newWeightsShowCmd() *cobra.Command {
	var spec string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print every neuron's weight row in effect, by uid",
		Long: `Reads the weights in effect on the chain and prints every neuron's row: its uid and
hotkey, then each uid it weighs, with that uid's hotkey and the weight (out of 65535).` + exitCodesHelp,
		Example: `  ledger weights show --chain local+http://127.0.0.1:9944
  ledger weights show --chain subtensor+wss://HOST:443/netuid=N --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openChain(cmd, spec)
			if err != nil {
				return err
			}
			defer c.Close()
			rows, err := c.Weights(cmd.Context())
			if err != nil {
				return err
			}
			m, err := c.Metagraph(cmd.Context())
			if err != nil {
				return err
			}
			out := make([]weightRow, 0, len(rows))
			for _, r := range rows {
				wr := weightRow{UID: r.UID, Hotkey: hotkeyOf(m, r.UID), UIDs: r.UIDs, Values: r.Values, Hotkeys: make([]keys.PublicKey, len(r.UIDs))}
				for i, u := range r.UIDs {
					wr.Hotkeys[i] = hotkeyOf(m, u)
				}
				out = append(out, wr)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			if len(out) == 0 {
				fmt.Fprintln(w, "no weights set")
			}
			for _, r := range out {
				fmt.Fprintf(w, "uid %d %s:", r.UID, r.Hotkey)
				for i, u := range r.UIDs {
					fmt.Fprintf(w, " %d=%d", u, r.Values[i])
				}
				fmt.Fprintln(w)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&spec, "chain", "", "chain spec (required)")
	cmd.MarkFlagRequired("chain")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func hotkeyOf(m *chain.Metagraph, uid uint16) keys.PublicKey {
	if int(uid) < len(m.Neurons) {
		return m.Neurons[uid].Hotkey
	}
	return keys.PublicKey{}
}
