package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/node"
)

func newPeersCmd() *cobra.Command {
	var (
		dataDir, statusAddr string
		asJSON              bool
	)
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "Show a running node's peers and the head of every chain it stores",
		Long: `peers shows what a running node reports: its peer ID and addresses, its
connected peers (with the validator each is bound to, if any, and the chain
each said it is of: the first 16 hex digits of its genesis hash, or "unknown"
for an observer of no network yet), the static peers (--peer) it is not
connected to, with since when and the last dial's error, and, for every
validator whose chain it stores, the head: height, transcripts, CID, and whether
the validator was caught equivocating.

It reads the status file the node rewrites in its data directory (--data), or
asks the node's status endpoint (--status, see "ledger node --status"). A status
file outlives its node: with --data, peers also asks whether a node runs there
(on its control socket, else by its store's lock), and if none does, shows the
last status under a line saying so and since when it dates, and exits 1.` + exitCodesHelp,
		Example: `  ledger peers --data ~/.ledger
  ledger peers --status 127.0.0.1:8080 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var st node.Status
			var err error
			live := node.Liveness{Running: true}
			switch {
			case (dataDir == "") == (statusAddr == ""):
				return usageError{msg: "give exactly one of --data and --status"}
			case dataDir != "":
				if st, err = node.ReadStatusFile(dataDir); err != nil {
					return err
				}
				var lerr error
				if live, lerr = node.CheckRunning(dataDir); lerr != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "ledger: %v; the status below may be of a node that stopped\n", lerr)
					live.Running = true
				}
			default:
				ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
				defer cancel()
				if st, err = node.FetchStatus(ctx, statusAddr); err != nil {
					return err
				}
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), st)
			} else {
				if !live.Running {
					fmt.Fprintln(cmd.OutOrStdout(), notRunning(dataDir, st, live, time.Now()))
				}
				err = printStatus(cmd.OutOrStdout(), st)
			}
			if err == nil && !live.Running {
				// The text says it above the status already.
				msg := "no node is running on " + dataDir
				if asJSON {
					msg = notRunning(dataDir, st, live, time.Now())
				}
				err = checkFailed{msg}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "data directory of the node (reads its status.json)")
	f.StringVar(&statusAddr, "status", "", "address of the node's status endpoint (host:port)")
	f.BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func printStatus(w io.Writer, st node.Status) error {
	role := "observer"
	if st.Validator != nil {
		role = "validator " + st.Validator.String()
	}
	network := fmt.Sprintf("netuid %d", st.NetUID)
	if st.Genesis != nil {
		network += " of chain " + st.Genesis.String()
	}
	fmt.Fprintf(w, "node %s (%s), %s, as of %s\n", st.PeerID, role, network, st.UpdatedAt.Format(time.RFC3339))
	for _, a := range st.Addrs {
		fmt.Fprintf(w, "  %s\n", a)
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\npeers: %d\n", len(st.Peers))
	if len(st.Peers) > 0 {
		fmt.Fprintln(tw, "  PEER\tVALIDATOR\tGENESIS\tCHAINS\tADDRESS")
	}
	for _, p := range st.Peers {
		v := "-"
		if p.Validator != nil {
			v = p.Validator.String()
		}
		genesis := "unknown"
		if p.Genesis != nil {
			genesis = p.Genesis.String()[:16]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", p.ID, v, genesis, p.Chains, strings.Join(p.Addrs, " "))
	}
	if len(st.StaticPeersDown) > 0 {
		fmt.Fprintf(tw, "\nstatic peers not connected: %d\n", len(st.StaticPeersDown))
		fmt.Fprintln(tw, "  PEER\tSINCE\tFAILED DIALS\tLAST ERROR")
	}
	for _, p := range st.StaticPeersDown {
		since := "-"
		if !p.Since.IsZero() {
			since = p.Since.UTC().Format(time.RFC3339)
		}
		lastErr := "-"
		if p.LastError != "" {
			// libp2p's dial errors list one address a line.
			lastErr = strings.Join(strings.Fields(p.LastError), " ")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", p.ID, since, p.FailedDials, lastErr)
	}
	fmt.Fprintf(tw, "\nchains: %d, fork proofs: %d\n", len(st.Heads), st.ForkProofs)
	if len(st.Heads) > 0 {
		fmt.Fprintln(tw, "  VALIDATOR\tHEIGHT\tTRANSCRIPTS\tHEAD\t")
	}
	for _, h := range st.Heads {
		note := ""
		if h.Equivocating {
			note = "EQUIVOCATED"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\n", h.Validator, h.Height, h.Transcripts, h.CID, note)
	}
	return tw.Flush()
}

// notRunning says that no node runs on dataDir, and since when st, its
// last status, dates.
func notRunning(dataDir string, st node.Status, live node.Liveness, now time.Time) string {
	msg := fmt.Sprintf("no node is running on %s: the status shown is its last, of %s (%s ago)",
		dataDir, st.UpdatedAt.UTC().Format(time.RFC3339), now.Sub(st.UpdatedAt).Round(time.Second))
	if live.Unclean {
		msg += "; it did not stop cleanly (its control socket " + node.ControlSocket(dataDir) + " was left behind)"
	}
	return msg
}
