package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/rng"
)

func newDemoCmd() *cobra.Command {
	var seedHex string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Walk through every environment: a challenge, a right and a wrong answer",
		Long: `For each environment: derives a challenge ID from a fixed seed the way a validator
derives one from a chain block, shows the prompt, plays the reference solver and a plausible
wrong answer, and shows what each scores.` + exitCodesHelp,
		Example: "  ledger demo\n  ledger demo --seed 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			anchor, err := challenge.ParseSeed(seedHex)
			if err != nil {
				return usageError{"--seed: " + err.Error()}
			}
			w := cmd.OutOrStdout()
			for _, ref := range registry.References() {
				if err := demoEnv(w, anchor, ref); err != nil {
					return err
				}
			}
			fmt.Fprintln(w, "\nEvery ID above regenerates the same task anywhere: try `ledger env test --challenge <id> --answer ...`.")
			return nil
		},
	}
	cmd.Flags().StringVar(&seedHex, "seed", strings.Repeat("00", 32), "public randomness (a chain block hash) as 64 hex characters")
	return cmd
}

func demoEnv(w io.Writer, anchor [32]byte, ref registry.Reference) error {
	spec := ref.Factory.Spec()
	// The demo stands in for a validator whose key is all zeros.
	id, err := challenge.Derive(anchor, [32]byte{}, spec.Name, spec.Version, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n=== %s v%d: %s\nchallenge %s\n", spec.Name, spec.Version, spec.Description, id)
	first, _, err := ref.Factory.New().Reset(id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "--- prompt (user)\n%s\n", indent(first[len(first)-1].Content))
	right, err := envtest.Play(ref.Factory, id, envtest.FromText(ref.Solve))
	if err != nil {
		return err
	}
	r := rng.New(rng.Derive(id.Seed, "demo/wrong"))
	wrong, err := envtest.Play(ref.Factory, id, func(_ challenge.ID, conv []envs.Message) string {
		a, _ := ref.Wrong(conv, r)
		return a
	})
	if err != nil {
		return err
	}
	for _, p := range []struct {
		label string
		ep    envs.Episode
	}{{"reference solver", right}, {"wrong-answer player", wrong}} {
		actions := envtest.Actions(p.ep.Messages)
		fmt.Fprintf(w, "--- %s: %d turn(s), last answer %q\n    reward %d (%s)\n", p.label, len(actions), envs.Truncate(actions[len(actions)-1], 60), p.ep.Reward, p.ep.Reason)
	}
	return nil
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], fmt.Sprintf("... (%d more lines)", len(lines)-12))
	}
	return "    " + strings.Join(lines, "\n    ")
}
