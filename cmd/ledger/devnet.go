package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/affine-ledger/ledger/devnet"
	"github.com/affine-ledger/ledger/validator"
)

func newDevnetCmd() *cobra.Command {
	var (
		dir                 string
		validators, miners  int
		duration, blockTime time.Duration
		stagger             time.Duration
		tempo               uint64
		asJSON              bool
		explorerAddr        string
	)
	cmd := &cobra.Command{
		Use:   "devnet",
		Short: "Run a whole network on this machine until a champion is crowned, then audit it",
		Long: `devnet starts, on loopback: a local chain; N validators as real libp2p nodes, each with
its own hotkey and Pebble store in DIR/v0 ... DIR/v{N-1}; and M reference miners serving
the chat API over HTTP, registered and committed on the chain: a noisy first champion, a
perfect solver that should dethrone it, a faulty one whose answers are not chat
completions, a copy of the perfect one (which validators must refuse to duel), and more
noisy ones beyond four.

The validators duel the miners, gossip and re-execute each other's blocks, and each
epoch commit their checkpoints on-chain, compute vTrust and set winner-takes-all weights.
The run ends when a champion has been crowned and every validator has set weights for it
(or --duration has passed); then the validators stop, every store catches up with every
chain, and every store is verified with re-execution. It prints a summary: the champion,
each duel's per-env win rates with their Wilson bounds, the ratio to beat, the vTrust
table, the on-chain commitments and weights, the ledger sizes and the command that audits
each store again. DIR/summary.json holds the same.

After the run, "ledger serve --data DIR/v0" explores any store. DIR must be empty or absent. Exit 1 if the goal was not reached or a store did not verify.
Interrupted (SIGINT, SIGTERM) before the goal, it stops the network, audits the stores and
exits with 128 + the signal (130, 143); a second signal ends it at once.` + exitCodesHelp,
		Example: `  ledger devnet --dir /tmp/devnet
  ledger devnet --dir /tmp/devnet --validators 6 --miners 6 --duration 3m --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usageError{"--dir is required"}
			}
			if validators < 1 || validators > devnet.MaxValidators {
				return usageError{fmt.Sprintf("--validators %d: want 1 to %d", validators, devnet.MaxValidators)}
			}
			if miners < 2 || miners > devnet.MaxMiners {
				return usageError{fmt.Sprintf("--miners %d: want 2 to %d", miners, devnet.MaxMiners)}
			}
			if duration <= 0 || blockTime <= 0 {
				return usageError{"--duration and --block-time must be positive"}
			}
			if stagger < 0 {
				return usageError{fmt.Sprintf("--stagger %s: want 0 or more", stagger)}
			}
			if tempo == 0 {
				return usageError{"--tempo 0: want at least 1 block per epoch"}
			}
			if explorerAddr != "" {
				if err := checkLoopback("--explorer", explorerAddr); err != nil {
					return err
				}
			}
			ctx, stop := stopOnSignal(cmd.Context())
			defer stop()
			disp := newDevnetDisplay(cmd.ErrOrStderr(), validators)
			cfg := devnet.Config{Dir: dir, Validators: validators, Miners: miners, Duration: duration,
				BlockTime: blockTime, Tempo: tempo, Stagger: stagger, Events: disp.event, Explorer: explorerAddr, Logger: loggerOf(cmd).With("component", "devnet")}
			if !cmd.Flags().Changed("log-level") {
				// The display tells the story; node logs would drown it.
				cfg.Logger = nil
			}
			sum, err := devnet.Run(ctx, cfg)
			disp.finish()
			sig := interruptedBy(ctx)
			if err != nil {
				if sig != nil {
					return interruptedError{sig, fmt.Sprintf("devnet: interrupted (%v): %v", sig, err)}
				}
				return err
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), sum); err != nil {
					return err
				}
			} else {
				printDevnetSummary(cmd.OutOrStdout(), sum)
			}
			if sum.Interrupted && sig != nil {
				return interruptedError{sig, "devnet: " + devnetInterrupted(sig, sum)}
			}
			if !sum.OK() {
				return checkFailed{"devnet: " + devnetProblem(sum)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "directory for the chain and the validators' stores; empty or absent (required)")
	f.IntVar(&validators, "validators", 4, "validator nodes")
	f.IntVar(&miners, "miners", 4, "reference miners")
	f.DurationVar(&duration, "duration", 90*time.Second, "longest the network runs before it is stopped and audited")
	f.DurationVar(&blockTime, "block-time", 250*time.Millisecond, "local chain block time")
	f.Uint64Var(&tempo, "tempo", 24, "local chain blocks per epoch")
	f.DurationVar(&stagger, "stagger", 0, "start validator i's duels i times this late (e.g. 12s: two epochs at the default chain's pace), so that their votes fall in different epochs")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.StringVar(&explorerAddr, "explorer", "", "serve validator 0's explorer, /metrics and /status on this loopback address while the devnet runs (e.g. 127.0.0.1:8080)")
	return cmd
}

// devnetInterrupted says that sig stopped the devnet before its goal,
// and what its audit found.
func devnetInterrupted(sig os.Signal, s *devnet.Summary) string {
	msg := fmt.Sprintf("interrupted (%v) after %.1f s, before a champion was crowned with weights set; the network was stopped and its stores audited", sig, s.Seconds)
	for _, st := range s.Stores {
		if !st.OK {
			msg += fmt.Sprintf("; the store of validator %d did not verify: %s", st.Validator, strings.Join(st.Failures, "; "))
		}
	}
	return msg
}

func devnetProblem(s *devnet.Summary) string {
	if !s.Goal {
		return "no champion was crowned with weights set before --duration ran out"
	}
	for _, st := range s.Stores {
		if !st.OK {
			return fmt.Sprintf("the store of validator %d did not verify: %s", st.Validator, strings.Join(st.Failures, "; "))
		}
	}
	return "no store was verified"
}

// devnetDisplay shows the devnet's progress: on a terminal one status line
// redrawn in place, with events printed above it; in a pipe the events
// only.
type devnetDisplay struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	duel []string // per validator: its current duel's progress
	line string
}

func newDevnetDisplay(w io.Writer, validators int) *devnetDisplay {
	f, ok := w.(*os.File)
	return &devnetDisplay{w: w, tty: ok && term.IsTerminal(int(f.Fd())), duel: make([]string, validators)}
}

func (d *devnetDisplay) event(e devnet.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at := fmt.Sprintf("[%5.1fs]", e.Elapsed.Seconds())
	switch e.Kind {
	case devnet.KindStarted, devnet.KindStopping:
		d.print(fmt.Sprintf("%s %s", at, e.Text))
		if e.URL != "" {
			d.print(fmt.Sprintf("%s explorer of validator 0: %s", at, e.URL))
		}
	case devnet.KindDuel:
		p := e.Duel
		switch p.Stage {
		case validator.StageStart:
			d.duel[e.Validator] = "start"
			d.print(fmt.Sprintf("%s v%d duel: contender %s against champion %s (ratio to beat %.3f)", at, e.Validator, p.Contender.Short(), p.Champion.Short(), float64(p.RatioPPM)/1e6))
		case validator.StageOutcome:
			d.duel[e.Validator] = fmt.Sprintf("%s %dW/%dL/%dD", p.Env, p.Wins, p.Losses, p.Draws)
		case validator.StageDecided:
			d.duel[e.Validator] = "decided"
			d.print(fmt.Sprintf("%s v%d duel decided: %s wins", at, e.Validator, p.Winner))
		case validator.StageAbandoned:
			d.print(fmt.Sprintf("%s v%d duel abandoned: %s", at, e.Validator, p.Reason))
		}
	case devnet.KindEpoch:
		r := e.Epoch
		w := "no weights"
		if r.Weights != nil {
			w = fmt.Sprintf("weights to uid %v", r.Weights.UIDs)
		}
		d.print(fmt.Sprintf("%s v%d epoch %d: champion %s, %d change(s), %s", at, e.Validator, r.Epoch, r.Output.Champion.Hotkey.Short(), len(r.Output.Changes), w))
	case devnet.KindTick:
		var parts []string
		for i, n := range e.Nodes {
			parts = append(parts, fmt.Sprintf("v%d %dp %db %s", i, n.Peers, n.Blocks, d.duel[i]))
		}
		d.status(fmt.Sprintf("%s %s", at, strings.Join(parts, " | ")))
	case devnet.KindVerified:
		v := e.Verified
		res := "ok"
		if !v.OK {
			res = "FAILED"
		}
		d.print(fmt.Sprintf("%s v%d store verified (%s, %s, %s, re-executed): %s", at, e.Validator,
			plural(v.Chains, "chain"), plural(v.Blocks, "block"), plural(v.Transcripts, "transcript"), res))
	}
}

// print writes an event line above the status line.
func (d *devnetDisplay) print(s string) {
	if d.tty {
		fmt.Fprint(d.w, "\r\033[K")
	}
	fmt.Fprintln(d.w, s)
	if d.tty && d.line != "" {
		fmt.Fprint(d.w, d.line)
	}
}

func (d *devnetDisplay) status(s string) {
	if !d.tty {
		return
	}
	if w, _, err := term.GetSize(int(d.w.(*os.File).Fd())); err == nil && len(s) > w-1 && w > 1 {
		s = s[:w-1]
	}
	d.line = s
	fmt.Fprint(d.w, "\r\033[K"+s)
}

func (d *devnetDisplay) finish() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tty && d.line != "" {
		fmt.Fprint(d.w, "\r\033[K")
		d.line = ""
	}
}

func printDevnetSummary(w io.Writer, s *devnet.Summary) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\nDevnet summary (%.1f s, %s)\n", s.Seconds, s.Dir)
	if s.Champion != nil {
		p("  champion: miner m%d (%s, %s) %s, consensus of epoch %d\n", s.Champion.Index, s.Champion.Role, s.Champion.Strategy, s.Champion.Hotkey, s.Epoch)
	} else {
		p("  champion: none\n")
	}
	p("\nMiners\n")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  miner\trole\tstrategy\thotkey\tendpoint")
	for _, m := range s.Miners {
		fmt.Fprintf(tw, "  m%d\t%s\t%s\t%s\t%s\n", m.Index, m.Role, m.Strategy, m.Hotkey.Short(), m.Endpoint)
	}
	tw.Flush()
	p("\nDuels (contender's win rate per env, Wilson bounds at the last look)\n")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  validator\tcontender vs champion\tratio to beat\tenv\tW/L/D\trate\twilson\tdecision\twinner")
	for _, du := range s.Duels {
		for i, e := range du.Envs {
			head := "\t\t"
			if i == 0 {
				head = fmt.Sprintf("v%d\tm%d vs m%d\t%.3f", du.Validator, du.Contender, du.Champion, float64(du.RatioPPM)/1e6)
			}
			winner := ""
			if i == 0 {
				winner = du.Winner
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d/%d/%d\t%.3f\t[%.3f, %.3f]\t%s\t%s\n", head, e.Env, e.Wins, e.Losses, e.Draws,
				float64(e.RatePPM)/1e6, float64(e.LowerPPM)/1e6, float64(e.UpperPPM)/1e6, e.Decision, winner)
		}
	}
	tw.Flush()
	p("\nRatio to beat now:")
	for i, r := range s.RatioToBeatPPM {
		p(" v%d %.3f", i, float64(r)/1e6)
	}
	p("\n\nvTrust (validator 0's view of epoch %d)\n", s.Epoch)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  validator\tstake\tvtrust\treexec\tdecisions\tagreed\tfaulted")
	rows := append([]devnet.TrustRow(nil), s.VTrust...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Validator < rows[j].Validator })
	for _, r := range rows {
		fmt.Fprintf(tw, "  v%d\t%d\t%.3f\t%.3f\t%.3f\t%d\t%d\n", r.Validator, r.Stake, float64(r.VTrustPPM)/1e6,
			float64(r.ReexecPPM)/1e6, float64(r.DecisionPPM)/1e6, r.Agreed, r.Faulted)
	}
	tw.Flush()
	p("\nOn-chain commitments\n")
	for _, c := range s.Commitments {
		p("  %-4s block %-5d %s\n", c.Who, c.Block, c.Text)
	}
	p("\nWeights on chain\n")
	for _, wr := range s.Weights {
		p("  v%d: uids %v values %v\n", wr.Validator, wr.UIDs, wr.Values)
	}
	p("\nLedgers\n")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  validator\tsize\tchains\tblocks\ttranscripts\tverified")
	for _, st := range s.Stores {
		res := "ok"
		if !st.OK {
			res = "FAILED: " + strings.Join(st.Failures, "; ")
		}
		fmt.Fprintf(tw, "  v%d\t%.1f MB\t%d\t%d\t%d\t%s (%.1f s)\n", st.Validator, float64(st.Bytes)/1e6, st.Chains, st.Blocks, st.Transcripts, res, st.Seconds)
	}
	tw.Flush()
	for _, pr := range s.Problems {
		p("\nproblem: %s\n", pr)
	}
	// The command as this binary was run (bin/ledger under make demo),
	// so that it can be pasted as it is.
	prog := "ledger"
	if filepath.Base(os.Args[0]) == "ledger" {
		prog = os.Args[0]
	}
	p("\nAudit any store yourself (all chains, re-execution on):\n")
	for _, st := range s.Stores {
		p("  %s verify --data %s\n", prog, st.Dir)
	}
}
