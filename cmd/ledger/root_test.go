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
		if !c.Runnable() || c.Name() == "help" || c.Name() == "completion" {
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
