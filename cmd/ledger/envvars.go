package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// envPrefix is the prefix of the environment variables that set flags.
const envPrefix = "LEDGER_"

// envName is the variable that sets a flag: LEDGER_ and the flag's name
// in upper case with dashes as underscores (--log-level: LEDGER_LOG_LEVEL).
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// noEnv are the flags no variable sets: they change what a command does
// rather than configure it.
var noEnv = map[string]bool{"help": true, "version": true}

// documentEnv appends each flag's variable to its help text, on every
// command under root.
func documentEnv(root *cobra.Command) {
	var walk func(c *cobra.Command)
	seen := map[*pflag.Flag]bool{}
	add := func(f *pflag.Flag) {
		if seen[f] || noEnv[f.Name] {
			return
		}
		seen[f] = true
		f.Usage += " [$" + envName(f.Name) + "]"
	}
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// applyEnv sets every flag of cmd the command line left unset from its
// LEDGER_* variable. The command line wins over the environment, and the
// environment over the default.
func applyEnv(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || noEnv[f.Name] {
			return
		}
		// An empty variable counts as unset, as shells make unsetting
		// awkward.
		v := os.Getenv(envName(f.Name))
		if v == "" {
			return
		}
		if e := cmd.Flags().Set(f.Name, v); e != nil {
			err = usageError{msg: fmt.Sprintf("%s=%q (for --%s): %v", envName(f.Name), v, f.Name, e)}
		}
	})
	return err
}
