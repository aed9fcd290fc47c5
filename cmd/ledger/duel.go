package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/duel"
)

func newDuelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "duel",
		Short: "Champion-versus-contender statistics (spec/duel.md)",
	}
	cmd.AddCommand(newDuelSimulateCmd())
	return cmd
}

// duelSimReport is the --json output of duel simulate; its field names are
// part of the CLI's documented interface.
type duelSimReport struct {
	Duels       int               `json:"duels"`
	Envs        int               `json:"envs"`
	Seed        string            `json:"seed"`
	DrawPPM     uint32            `json:"draw_ppm"`
	EpsilonPPM  uint32            `json:"epsilon_ppm"`
	FloorPPM    uint32            `json:"floor_ppm"`
	HighPPM     uint32            `json:"high_ppm"`
	Rule        duel.Rule         `json:"rule"`
	Fixed       duel.FixedRule    `json:"fixed"`
	EverySample bool              `json:"every_sample"`
	Cases       []duel.CaseResult `json:"cases"`
	Targets     []duel.Target     `json:"targets"`
	Pass        bool              `json:"pass"`
}

func newDuelSimulateCmd() *cobra.Command {
	var (
		asJSON, every             bool
		duels, envs, workers      int
		seed, draw, epsilon, high string
	)
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate duels and check the sequential rule against its targets",
		Long: `Plays --duels simulated duels per case with --envs envs: the ratio to beat at its
floor (0.5 + --epsilon) and at --high, and a contender whose true win rate is the ratio
itself (the boundary: every dethrone there is false), 0.5, 0.55, 0.6 and 0.7 in every
env, plus a mixed contender (0.7 in one env, the floor in the others). Each case runs
the sequential rule, the fixed rule Affine used (400 challenges per env, then one
Wilson interval) and the naive rule that looks after every outcome, on the same
simulated outcomes. Challenges are draws with probability --draw; draws do not count
toward the win rate.

It prints, per case and rule, the dethrone rate and the mean and 95th percentile of
challenges per duel (all envs together), then checks the targets of spec/duel.md:
at most 5% false dethrones at the boundary, and at 0.6 against the floor at least the
fixed rule's power with at most a third of its mean challenges. The run is
deterministic given --seed (any text; the stream seed is its SHA-256).` + exitCodesHelp,
		Example: `  ledger duel simulate
  ledger duel simulate --json --duels 2000 --seed audit
  ledger duel simulate --draw 0.5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			drawPPM, err := duel.ParsePPM(draw)
			if err != nil || drawPPM >= duel.PPM {
				return usageError{fmt.Sprintf("--draw %q: want a probability below 1 with at most 6 decimals", draw)}
			}
			epsPPM, err := duel.ParsePPM(epsilon)
			if err != nil {
				return usageError{fmt.Sprintf("--epsilon: %v", err)}
			}
			params := duel.FrontierParams{EpsilonPPM: epsPPM, HalfLifeBlocks: duel.DefaultFrontierParams().HalfLifeBlocks}
			if err := params.Validate(); err != nil {
				return usageError{fmt.Sprintf("--epsilon: %v", err)}
			}
			highPPM, err := duel.ParsePPM(high)
			if err != nil || highPPM == 0 || highPPM >= duel.PPM {
				return usageError{fmt.Sprintf("--high %q: want a ratio strictly between 0 and 1", high)}
			}
			if highPPM < params.Floor() {
				return usageError{fmt.Sprintf("--high %s is below the floor %s (0.5 + --epsilon), where the ratio to beat starts and decays to; give a --high at or above it",
					high, duel.FormatPPM(params.Floor()))}
			}
			if envs < 1 || envs > duel.MaxEnvs {
				return usageError{fmt.Sprintf("--envs %d: want 1 to %d", envs, duel.MaxEnvs)}
			}
			if workers < 0 {
				return usageError{fmt.Sprintf("--workers %d: want 0 (one per CPU) or more", workers)}
			}
			if duels < 1 {
				return usageError{fmt.Sprintf("--duels %d: want at least 1", duels)}
			}
			cfg := duel.SimConfig{
				Rule:    duel.DefaultRule(),
				Fixed:   duel.FixedRule{Challenges: 400, ZMilli: duel.DefaultRule().ZMilli},
				Duels:   duels,
				Seed:    sha256.Sum256([]byte(seed)),
				Workers: workers,
			}
			if every {
				r := duel.EverySampleRule(cfg.Rule.ZMilli, cfg.Rule.Cap(), cfg.Rule.MaxChallenges)
				cfg.EverySample = &r
			}
			start := time.Now()
			results, err := duel.Simulate(cfg, duel.StandardCases(params.Floor(), highPPM, drawPPM, envs))
			if err != nil {
				return usageError{err.Error()}
			}
			report := duelSimReport{
				Duels: duels, Envs: envs, Seed: seed, DrawPPM: drawPPM, EpsilonPPM: epsPPM,
				FloorPPM: params.Floor(), HighPPM: highPPM, Rule: cfg.Rule, Fixed: cfg.Fixed,
				EverySample: every, Cases: results, Targets: duel.CheckTargets(results, params.Floor()), Pass: true,
			}
			var failed []string
			for _, t := range report.Targets {
				if t.Checked && !t.Pass {
					report.Pass = false
					failed = append(failed, t.Name)
				}
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), report)
			} else {
				err = printDuelSim(cmd.OutOrStdout(), report)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "duel simulate: %d cases in %s\n", len(results), time.Since(start).Round(time.Millisecond))
			if !report.Pass {
				return checkFailed{"targets missed: " + strings.Join(failed, "; ")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.IntVar(&duels, "duels", 10_000, "simulated duels per case")
	f.StringVar(&seed, "seed", "1", "seed text (the stream seed is its SHA-256)")
	f.StringVar(&draw, "draw", "0", "probability that a challenge is a draw")
	f.IntVar(&envs, "envs", 3, "envs per duel")
	f.StringVar(&epsilon, "epsilon", "0.02", "the floor of the ratio to beat is 0.5 + epsilon")
	f.StringVar(&high, "high", "0.6", "the second ratio to beat simulated")
	f.BoolVar(&every, "every-sample", true, "also play the rule that looks after every outcome")
	f.IntVar(&workers, "workers", 0, "parallel workers (0: one per CPU); results do not depend on it")
	return cmd
}

func printDuelSim(w io.Writer, r duelSimReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger duel simulate: %d duels per case, %d envs, draw probability %s, seed %q\n", r.Duels, r.Envs, duel.FormatPPM(r.DrawPPM), r.Seed)
	looks := make([]string, len(r.Rule.Looks))
	for i, l := range r.Rule.Looks {
		looks[i] = fmt.Sprint(l)
	}
	fmt.Fprintf(&b, "sequential: Wilson z=%s at %s decisive outcomes per env, at most %d challenges per env\n",
		milli(r.Rule.ZMilli), strings.Join(looks, " "), r.Rule.MaxChallenges)
	fmt.Fprintf(&b, "fixed:      %d challenges per env, then Wilson z=%s once\n", r.Fixed.Challenges, milli(r.Fixed.ZMilli))
	if r.EverySample {
		fmt.Fprintf(&b, "every:      Wilson z=%s after every decisive outcome up to %d per env\n", milli(r.Rule.ZMilli), r.Rule.Cap())
	}
	fmt.Fprintf(&b, "ratio floor 0.5 + %s = %s; challenges are counted over all envs, draws included\n\n", duel.FormatPPM(r.EpsilonPPM), duel.FormatPPM(r.FloorPPM))
	fmt.Fprintf(&b, "%-6s %-20s | %-25s | %-25s | %-6s | %-8s | %s\n", "", "", "sequential", "fixed", "seq/", "every", "exact sequential")
	fmt.Fprintf(&b, "%-6s %-20s | %8s %7s %8s | %8s %7s %8s | %-6s | %-8s | %8s %7s\n",
		"ratio", "true rates", "dethrone", "mean", "p95", "dethrone", "mean", "p95", "fixed", "dethrone", "dethrone", "mean")
	for _, c := range r.Cases {
		rates := ratesText(c.Case.RatesPPM)
		if c.Boundary {
			rates += " (boundary)"
		}
		every, exactD, exactM := "", "", ""
		if c.EverySample != nil {
			every = pct(c.EverySample.DethroneRate)
		}
		if c.Exact != nil {
			exactD, exactM = pct(c.Exact.Dethrone), fmt.Sprintf("%.0f", c.Exact.Mean)
		}
		fmt.Fprintf(&b, "%-6s %-20s | %8s %7.0f %8d | %8s %7.0f %8d | %6.3f | %8s | %8s %7s\n",
			duel.FormatPPM(c.Case.RatioPPM), rates,
			pct(c.Sequential.DethroneRate), c.Sequential.MeanChallenges, c.Sequential.P95Challenges,
			pct(c.Fixed.DethroneRate), c.Fixed.MeanChallenges, c.Fixed.P95Challenges,
			c.MeanRatio, every, exactD, exactM)
	}
	b.WriteString("\ntargets:\n")
	for _, t := range r.Targets {
		mark := "PASS"
		switch {
		case !t.Checked:
			mark = "SKIP"
		case !t.Pass:
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", mark, t.Name, t.Detail)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratesText shows equal rates once ("0.600") and others joined by slashes.
func ratesText(rates []uint32) string {
	same := true
	for _, r := range rates {
		same = same && r == rates[0]
	}
	if same {
		return duel.FormatPPM(rates[0])
	}
	parts := make([]string, len(rates))
	for i, r := range rates {
		parts[i] = duel.FormatPPM(r)
	}
	return strings.Join(parts, "/")
}

func pct(f float64) string { return fmt.Sprintf("%.2f%%", 100*f) }

func milli(v uint32) string { return fmt.Sprintf("%d.%03d", v/1000, v%1000) }
