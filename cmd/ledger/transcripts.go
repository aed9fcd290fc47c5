package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/ipfs/go-cid"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// minerTranscript is one row of `ledger transcripts`; the JSON names are
// part of the CLI's interface. A transcript the store holds but cannot
// read (its bytes do not hash to its CID, its block is unreadable) is a
// row too, with what the log's index says of it (validator, height, leaf,
// CID) and Error set; the fields read from the transcript stay empty.
type minerTranscript struct {
	Env        string         `json:"env"`
	EnvVersion uint16         `json:"env_version"`
	Challenge  string         `json:"challenge"`
	Score      int64          `json:"score"`
	Reason     string         `json:"reason"`
	Validator  keys.PublicKey `json:"validator"`
	Height     uint64         `json:"height"`
	Block      string         `json:"block"`
	Leaf       uint64         `json:"leaf"`
	Transcript string         `json:"transcript"`
	Error      string         `json:"error,omitempty"`
}

func newTranscriptsCmd() *cobra.Command {
	var (
		dataDir, miner, env string
		asJSON              bool
	)
	cmd := &cobra.Command{
		Use:   "transcripts",
		Short: "List a miner's transcripts in every validator's log",
		Long: `Lists every transcript of a miner's hotkey that the store holds, by validator then log
order: env, challenge ID, score, validator, block height and CID, and the transcript's CID
(for ledger prove). A transcript the store holds but cannot read (damaged bytes) is named on
stderr, and in --json is an entry with "error" set and only validator, height, leaf, block (if
readable) and transcript filled in; it is listed whatever --env is, its env being unknown. The
others are all listed, and the command exits 1.` + exitCodesHelp,
		Example: `  ledger transcripts --data ~/.ledger/store --miner 5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty
  ledger transcripts --data ~/.ledger/store --miner 5FHneW46... --env mult8 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "env"); err != nil {
				return err
			}
			if dataDir == "" || miner == "" {
				return usageError{"--data and --miner are required"}
			}
			m, err := keys.ParseSS58(miner)
			if err != nil {
				return usageError{fmt.Sprintf("--miner: %v", err)}
			}
			if env != "" {
				if err := checkEnvFlag(env); err != nil {
					return err
				}
			}
			s, err := openExistingStore(dataDir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			rows, err := minerTranscripts(s, m, env)
			if err != nil {
				return err
			}
			bad := 0
			for _, r := range rows {
				if r.Error != "" {
					bad++
					fmt.Fprintf(cmd.ErrOrStderr(), "ledger: transcript %s (validator %s height %d leaf %d) cannot be read: %s\n",
						r.Transcript, r.Validator, r.Height, r.Leaf, r.Error)
				}
			}
			unreadable := func() error {
				if bad == 0 {
					return nil
				}
				return checkFailed{fmt.Sprintf("%d of %s of miner %s cannot be read (see their error), the others are listed; ledger verify --data %s checks the store",
					bad, plural(len(rows), "transcript"), m, dataDir)}
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), rows); err != nil {
					return err
				}
				return unreadable()
			}
			if len(rows) == 0 {
				// Not an error: the miner may not have been dueled yet, or
				// not by the validators this store replicates.
				what := "no transcripts"
				if env != "" {
					what += " in env " + env
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s of miner %s in this store\n", what, m)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ENV\tCHALLENGE\tSCORE\tVALIDATOR\tHEIGHT\tBLOCK\tTRANSCRIPT")
			for _, r := range rows {
				if r.Error != "" {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%s\n", r.Env, r.Challenge, r.Score, r.Validator, r.Height, r.Block, r.Transcript)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return unreadable()
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory")
	f.StringVar(&miner, "miner", "", "the miner's hotkey (SS58)")
	f.StringVar(&env, "env", "", "only this environment (a name ledger env list shows)")
	f.BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// checkEnvFlag refuses an --env that is no env name, or names no env
// this binary knows (registry: every version of every env, retired ones
// included, since verify re-executes them): a typo would list nothing
// and look like "no transcripts".
func checkEnvFlag(env string) error {
	if err := challenge.CheckEnvName(env); err != nil {
		return usageError{fmt.Sprintf("--env: %v", err)}
	}
	if _, err := registry.Latest(env); err != nil {
		return usageError{fmt.Sprintf("--env: %v", err)}
	}
	return nil
}

// minerTranscripts lists miner's transcripts in every validator's log,
// those of env only if env is set. One that cannot be read is a row with
// Error set, not the end of the list: one damaged object must not hide
// the rest of a miner's record. Only a failure of the index itself ends
// it.
func minerTranscripts(s *ledger.Store, miner keys.PublicKey, env string) ([]minerTranscript, error) {
	rows := []minerTranscript{}
	type at struct {
		v keys.PublicKey
		h uint64
	}
	var last at
	var lastCID cid.Cid
	var lastErr error
	for ref, err := range s.TranscriptsByMiner(miner) {
		if err != nil {
			return nil, err
		}
		row := minerTranscript{Validator: ref.Validator, Height: ref.Height, Leaf: ref.Leaf, Transcript: ref.CID.String()}
		if here := (at{ref.Validator, ref.Height}); here != last || (!lastCID.Defined() && lastErr == nil) {
			b, err := s.BlockAt(ref.Validator, ref.Height)
			last, lastCID, lastErr = here, b.CID, err
		}
		if lastErr == nil {
			row.Block = lastCID.String()
		}
		t, err := s.Transcript(ref.CID)
		switch {
		case err != nil:
			row.Error = err.Error()
		case lastErr != nil:
			row.Error = fmt.Sprintf("its block: %v", lastErr)
		}
		if row.Error != "" {
			rows = append(rows, row)
			continue
		}
		if env != "" && t.Env != env {
			continue
		}
		row.Env, row.EnvVersion, row.Challenge, row.Score, row.Reason = t.Env, t.EnvVersion, t.Challenge.String(), t.Reward, t.Reason
		rows = append(rows, row)
	}
	return rows, nil
}
