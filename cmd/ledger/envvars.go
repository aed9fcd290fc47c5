package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// LEDGER_* environment variables configure a node's deployment (a unit
// file, a container) and the commands an operator runs beside it. One
// environment is shared by every command run in it, so a variable sets a
// flag only in the commands envVars lists for it, where the flag means
// what the variable means: LEDGER_VALIDATOR is the node's set of accepted
// validators, never the bool of "chain register --validator" nor the
// filter of "verify --validator", and LEDGER_LISTEN the node's
// multiaddresses, never the host:port of "serve --listen". Every other
// flag is taken from the command line only. README, "Environment
// variables", has the same table.

// envPrefix is the prefix of the environment variables that set flags.
const envPrefix = "LEDGER_"

// envName is the variable that sets a flag: LEDGER_ and the flag's name
// in upper case with dashes as underscores (--log-level: LEDGER_LOG_LEVEL).
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envVar is one variable: the flag it sets and the commands (paths below
// "ledger") whose flag of that name it sets; none listed: every command.
type envVar struct {
	flag     string
	commands []string
}

// envVars are the only variables there are. Left out on purpose: the
// auditor's commands (verify, verify-proof, import), which name what they
// audit on the command line; flags that say what one run does (--json,
// --out, --from, --seed); and the flags of the local chain, the miner and
// the devnet, whose --listen, --dir and --genesis mean other things than
// the node's.
var envVars = []envVar{
	{"log-level", nil},
	{"log-format", nil},
	{"data", []string{"node", "serve", "peers", "export", "consistency", "forks", "prove", "ratio show", "transcripts", "vtrust show"}},
	{"chain", []string{"node", "serve", "vtrust show", "weights show", "chain status", "chain contenders", "chain register", "miner commit"}},
	{"status", []string{"node", "peers"}},
	{"key", []string{"node", "keys show"}},
	{"pprof", []string{"node", "serve"}},
	{"genesis", []string{"node"}},
	{"netuid", []string{"node"}},
	{"listen", []string{"node"}},
	{"peer", []string{"node"}},
	{"validator", []string{"node"}},
	{"mdns", []string{"node"}},
	{"evaluate", []string{"node"}},
	{"epochs", []string{"node"}},
	{"chutes-api-key", []string{"node"}},
	{"miner-timeout", []string{"node"}},
	{"private-endpoints", []string{"node"}},
}

// envAlternatives are, per command, flags of which it takes exactly one.
// A variable sets none of them when the command line gives one; when
// variables set several, the first listed wins: a node's unit file sets
// both LEDGER_DATA and LEDGER_STATUS, and "ledger peers" beside it asks
// the running node rather than read the file it last wrote.
var envAlternatives = map[string][]string{
	"peers": {"status", "data"},
}

// noEnv are flags no variable may ever set, whatever envVars says: they
// destroy or weaken something, which an operator must ask for on the
// command line each time, as a variable left in a shell or a unit file
// would do it to every later run unasked. TestEnvVarsTable holds envVars
// to it.
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

// commandName is cmd's path below the root: "chain register".
func commandName(cmd *cobra.Command) string {
	path := cmd.CommandPath()
	if cmd.HasParent() {
		path = strings.TrimPrefix(path, cmd.Root().Name()+" ")
	}
	return path
}

// envFor returns the variable that sets flag in the command named cmd,
// "" if none does.
func envFor(cmd, flag string) string {
	if noEnv[flag] {
		return ""
	}
	for _, v := range envVars {
		if v.flag == flag && (v.commands == nil || slices.Contains(v.commands, cmd)) {
			return envName(flag)
		}
	}
	return ""
}

// documentEnv appends its variable to the help text of each flag one sets,
// on every command under root.
func documentEnv(root *cobra.Command) {
	var walk func(c *cobra.Command)
	seen := map[*pflag.Flag]bool{}
	walk = func(c *cobra.Command) {
		name := commandName(c)
		add := func(f *pflag.Flag) {
			v := envFor(name, f.Name)
			if v == "" || seen[f] {
				return
			}
			seen[f] = true
			if _, ok := f.Value.(pflag.SliceValue); ok {
				f.Usage += " [$" + v + ": a comma-separated list]"
			} else {
				f.Usage += " [$" + v + "]"
			}
		}
		c.LocalFlags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// applyEnv sets every flag of cmd the command line left unset from its
// variable, if one sets it in cmd. The command line wins over the
// environment, and the environment over the default. A repeatable flag
// takes a comma-separated list, which replaces its defaults as the flag
// given on the command line does.
func applyEnv(cmd *cobra.Command) error {
	name := commandName(cmd)
	alts := envAlternatives[name]
	altTaken := slices.ContainsFunc(alts, func(f string) bool { return cmd.Flags().Changed(f) })
	var err error
	set := func(flag string) {
		f := cmd.Flags().Lookup(flag)
		v := envFor(name, flag)
		if err != nil || f == nil || f.Changed || v == "" {
			return
		}
		// An empty variable counts as unset, as shells make unsetting
		// awkward.
		val := os.Getenv(v)
		if val == "" {
			return
		}
		if slices.Contains(alts, flag) {
			if altTaken {
				return
			}
			altTaken = true
		}
		if e := setFromEnv(cmd.Flags(), f, val); e != nil {
			err = usageError{msg: fmt.Sprintf("%s=%q (for --%s): %v", v, val, f.Name, e)}
			return
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[fromEnv] = []string{v}
	}
	// Alternatives first, in their order of preference.
	for _, flag := range alts {
		set(flag)
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) { set(f.Name) })
	return err
}

// setFromEnv sets f to a variable's value: a repeatable flag to the
// comma-separated items of val (none of a multiaddress, an address or a
// host:port holds a comma), any other flag to val.
func setFromEnv(fs *pflag.FlagSet, f *pflag.Flag, val string) error {
	sv, ok := f.Value.(pflag.SliceValue)
	if !ok {
		return fs.Set(f.Name, val)
	}
	var items []string
	for item := range strings.SplitSeq(val, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	if len(items) == 0 {
		return fmt.Errorf("no value between the commas")
	}
	if err := sv.Replace(items); err != nil {
		return err
	}
	f.Changed = true
	return nil
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
