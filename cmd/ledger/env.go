package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
)

func newEnvCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "List environments and try their challenges",
	}
	cmd.AddCommand(newEnvListCmd(), newEnvTestCmd())
	return cmd
}

func newEnvListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the environments and their versions",
		Long:    "Lists every environment this binary runs: its name, version, turns, reward range and description." + exitCodesHelp,
		Example: "  ledger env list\n  ledger env list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var specs []envs.Spec
			for _, f := range registry.Current() {
				specs = append(specs, f.Spec())
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), specs)
			}
			w := cmd.OutOrStdout()
			for _, s := range specs {
				fmt.Fprintf(w, "%-10s v%-3d turns<=%d reward %d..%d  %s\n", s.Name, s.Version, s.MaxTurns, s.MinReward, s.MaxReward, s.Description)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// envTestResult is the --json output of env test; its field names are part of the CLI's
// documented interface.
type envTestResult struct {
	ChallengeID challenge.ID   `json:"challenge_id"`
	Env         string         `json:"env"`
	Version     uint16         `json:"version"`
	Messages    []envs.Message `json:"messages"`
	Info        envs.Info      `json:"info"`
	Answers     []string       `json:"answers,omitempty"`
	Replies     []envs.Message `json:"replies,omitempty"`
	Rewards     []int          `json:"rewards,omitempty"`
	Score       *int           `json:"score,omitempty"`
	Reason      string         `json:"reason,omitempty"`
	Done        *bool          `json:"done,omitempty"`
}

func newEnvTestCmd() *cobra.Command {
	var (
		name, seedHex, idText string
		answers               []string
		asJSON                bool
	)
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Generate one challenge and optionally score answers to it",
		Long: `Generates the challenge of a seed or challenge ID and prints its chat messages and
info. With --answer, plays the answers in order (one per turn for multi-turn envs) and
prints the reward and the reason.` + exitCodesHelp,
		Example: `  ledger env test --env mult8 --seed 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff --json
  ledger env test --challenge mult8.v1.00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff --answer 1234
  ledger env test --env tictactoe --seed <64 hex> --answer '<move>5</move>' --answer '<move>1</move>'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, f, err := resolveChallenge(name, seedHex, idText)
			if err != nil {
				return err
			}
			obs, info, err := f.New().Reset(id)
			if err != nil {
				return usageError{err.Error()}
			}
			res := envTestResult{ChallengeID: id, Env: id.Env, Version: id.Version, Messages: obs, Info: info}
			if cmd.Flags().Changed("answer") {
				ep, err := envs.Replay(f, id, answers)
				if err != nil {
					return usageError{"--answer: " + err.Error()}
				}
				res.Answers, res.Rewards, res.Reason = answers, ep.Rewards, ep.Reason
				res.Score, res.Done = &ep.Reward, &ep.Done
				for _, m := range ep.Messages[len(obs):] {
					if m.Role != envs.RoleAssistant {
						res.Replies = append(res.Replies, m)
					}
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			printEnvTest(cmd.OutOrStdout(), res)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "env", "", "environment name (with --seed)")
	cmd.Flags().StringVar(&seedHex, "seed", "", "32-byte seed as 64 lower-case hex characters (with --env)")
	cmd.Flags().StringVar(&idText, "challenge", "", "challenge ID, e.g. mult8.v1.<64 hex>")
	cmd.Flags().StringArrayVar(&answers, "answer", nil, "an answer to score; repeat for later turns")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func resolveChallenge(name, seedHex, idText string) (challenge.ID, envs.Factory, error) {
	switch {
	case idText != "" && (name != "" || seedHex != ""):
		return challenge.ID{}, nil, usageError{"give either --challenge or --env with --seed, not both"}
	case idText != "":
		id, err := challenge.Parse(idText)
		if err != nil {
			return id, nil, usageError{"--challenge: " + err.Error()}
		}
		f, err := registry.ForID(id)
		if err != nil {
			return id, nil, usageError{"--challenge: " + err.Error()}
		}
		return id, f, nil
	case name == "" || seedHex == "":
		return challenge.ID{}, nil, usageError{"need --challenge ID, or --env NAME with --seed HEX"}
	}
	f, err := registry.Latest(name)
	if err != nil {
		return challenge.ID{}, nil, usageError{"--env: " + err.Error()}
	}
	seed, err := challenge.ParseSeed(seedHex)
	if err != nil {
		return challenge.ID{}, nil, usageError{"--seed: " + err.Error()}
	}
	id, err := challenge.New(name, f.Spec().Version, seed)
	if err != nil {
		return id, nil, usageError{err.Error()}
	}
	return id, f, nil
}

func printEnvTest(w io.Writer, r envTestResult) {
	fmt.Fprintf(w, "challenge %s\n", r.ChallengeID)
	for _, m := range r.Messages {
		fmt.Fprintf(w, "\n[%s]\n%s\n", m.Role, strings.TrimRight(m.Content, "\n"))
	}
	for i, a := range r.Answers {
		fmt.Fprintf(w, "\n[answer %d]\n%s\n", i+1, a)
	}
	for _, m := range r.Replies {
		fmt.Fprintf(w, "\n[%s]\n%s\n", m.Role, strings.TrimRight(m.Content, "\n"))
	}
	if r.Score != nil {
		fmt.Fprintf(w, "\nscore %d (%s)\n", *r.Score, r.Reason)
	}
}
