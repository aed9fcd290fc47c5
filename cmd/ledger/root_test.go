package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHelpHasExampleAndExitCodes: README: "Every command has
// --help with an example"; main.go: exit codes "documented in every
// command's help".
func TestEveryCommandHelpHasExampleAndExitCodes(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.HasSubCommands() || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Example == "" {
			t.Errorf("%q has no example", c.CommandPath())
		}
		if !strings.Contains(c.Long, "Exit codes") {
			t.Errorf("%q does not document its exit codes", c.CommandPath())
		}
	}
	walk(newRootCmd())
}

// TestUnknownSubcommandIsBadUsage: "ledger env bogus" is bad usage (exit
// 2) naming the command, like "ledger bogus"; cobra would print the
// group's help and exit 0. A group alone still prints its help.
func TestUnknownSubcommandIsBadUsage(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.HasSubCommands() || c.Name() == "completion" {
			return
		}
		args := append(strings.Fields(c.CommandPath())[1:], "bogus")
		code, out, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, `unknown command "bogus"`) || !strings.Contains(errs, c.CommandPath()+" --help") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 naming the command and its --help", args, code, len(out), errs)
		}
		if c.HasParent() {
			code, out, _ := ledgerRun(t, args[:len(args)-1]...)
			if code != exitOK || !strings.Contains(out, "Available Commands") {
				t.Errorf("%v alone: exit %d, %q; want its help, exit 0", args[:len(args)-1], code, out)
			}
		}
	}
	walk(newRootCmd())
	if code, _, errs := ledgerRun(t, "env", "lsit"); code != exitUsage || !strings.Contains(errs, "did you mean list?") {
		t.Errorf("env lsit: exit %d, %q; want a suggestion of list", code, errs)
	}
}

// TestFlagErrorsPointAtHelp: a bad flag or flag value names the flag and
// the help that lists them.
func TestFlagErrorsPointAtHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--bogus"}, "unknown flag: --bogus (see ledger verify --help)"},
		{[]string{"verify", "--data", "x", "--from", "abc"}, `invalid argument "abc" for "--from" flag`},
		{[]string{"chain", "status", "--bogus"}, "(see ledger chain status --help)"},
	} {
		code, _, errs := ledgerRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "--help)") {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q and a pointer to --help", tc.args, code, errs, tc.want)
		}
	}
}

// TestDataFlagsNameBothForms: README: "--data takes a store or a node's
// data directory"; every command that reads a store says so in --help.
func TestDataFlagsNameBothForms(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		f := c.Flags().Lookup("data")
		// node and peers take only a node's data directory; devnet has --dir.
		if f == nil || c.Name() == "node" || c.Name() == "peers" {
			return
		}
		if !strings.Contains(f.Usage, "store directory") || !strings.Contains(f.Usage, "node's data directory") {
			t.Errorf("%s --data: %q does not name both a store directory and a node's data directory", c.CommandPath(), f.Usage)
		}
	}
	walk(newRootCmd())
}
