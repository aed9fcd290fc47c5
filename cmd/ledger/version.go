package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set by -ldflags at release time.
var version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the ledger version",
		Long:    "Prints the version this binary was built as (a release's tag, or the module version)." + exitCodesHelp,
		Example: "  ledger version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
				v = info.Main.Version
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ledger", v)
			return nil
		},
	}
}
