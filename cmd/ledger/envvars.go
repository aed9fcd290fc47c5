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
// rather than configure it, or they destroy or weaken something, which an
// operator must ask for on the command line each time: a variable left in
// a shell or a unit file would do it to every later run unasked.
var noEnv = map[string]bool{
	"help": true, "version": true,
	// --force replaces an existing key file: the only copy of a secret.
	"force": true,
	// --out names the file a command replaces.
	"out": true,
	// --no-reexec skips the re-execution a verification is for.
	"no-reexec": true,
	// --password is refused as a flag; a secret has no place in either.
	"password": true,
	// --resume-signing lifts a halt that keeps a validator from
	// equivocating: once, when the operator has dealt with its cause.
	"resume-signing": true,
}

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
			return
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[fromEnv] = []string{envName(f.Name)}
	})
	return err
}

// fromEnv marks a flag whose value applyEnv took from its variable.
const fromEnv = "ledger/from-env"

// envNote says which variables set the flags msg names: a command checks
// a value under its flag's name, which an operator who set the variable
// and never typed the flag would not look for. Empty if msg names none.
func envNote(cmd *cobra.Command, msg string) string {
	if cmd == nil {
		return ""
	}
	var notes []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		v := f.Annotations[fromEnv]
		if len(v) == 0 || strings.Contains(msg, v[0]) || !namesFlag(msg, f.Name) {
			return
		}
		notes = append(notes, fmt.Sprintf("--%s was set by the environment variable %s", f.Name, v[0]))
	})
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// namesFlag reports whether msg names --name itself, not a longer flag
// it begins (--data, not --data-dir).
func namesFlag(msg, name string) bool {
	flag := "--" + name
	for i := 0; ; {
		j := strings.Index(msg[i:], flag)
		if j < 0 {
			return false
		}
		end := i + j + len(flag)
		if end == len(msg) || !isFlagByte(msg[end]) {
			return true
		}
		i = end
	}
}

func isFlagByte(b byte) bool {
	return b == '-' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}
