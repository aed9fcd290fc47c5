package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/keys"
)

// Bad usage names what is wrong and the help that says what is right.

// flagError is every command's flag error: the flag and where to read
// about the command's flags.
func flagError(cmd *cobra.Command, err error) error {
	return usageError{fmt.Sprintf("%v (see %s --help)", err, cmd.CommandPath())}
}

// strictGroups makes every command that only holds subcommands refuse an
// argument it does not know. Cobra prints such a command's help and
// exits 0 whatever follows it below the root, so "ledger env lsit"
// looked like success; alone, a group still prints its help.
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroups(sub)
	}
	if c.Runnable() || !c.HasSubCommands() {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's own default
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
		}
		return usageError{fmt.Sprintf("%s; see %s --help", msg, cmd.CommandPath())}
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// refuseEmpty refuses each of the named flags that was given an empty
// value. Left out, these flags pick another mode of the command (a node
// without --key is an observer, verify without --chain checks no
// commitment); given empty, as "--key $KEY" is with KEY unset, they
// silently ran that mode. An empty LEDGER_* variable counts as unset
// (applyEnv) and is not refused.
func refuseEmpty(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() == "" {
			return usageError{fmt.Sprintf("--%s: empty; give a value or leave the flag out", name)}
		}
	}
	return nil
}

// onlyValidator reads an optional --validator that narrows a listing to
// one validator: nil when the flag is left out, a usage error when it is
// given empty or is not an address.
func onlyValidator(cmd *cobra.Command, address string) (*keys.PublicKey, error) {
	if err := refuseEmpty(cmd, "validator"); err != nil {
		return nil, err
	}
	if address == "" {
		return nil, nil
	}
	v, err := keys.ParseSS58(address)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--validator: %v", err)}
	}
	return &v, nil
}
