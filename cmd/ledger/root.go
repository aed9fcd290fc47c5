package main

import (
	"github.com/spf13/cobra"
)

const exitCodesHelp = `
Exit codes: 0 ok, 1 a check failed, 2 bad usage or unreadable input.`

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ledger",
		Short: "Validator node and audit tool for a decentralized model-evaluation network",
		Long: `ledger records every exchange between validators and models as signed,
hash-chained transcripts, replicates them between validators, and lets anyone
re-execute and verify them.

The node's flags, and the same flags of the commands run beside it, can also
be set by environment variables, named in each flag's help: LEDGER_ and the
flag in upper case (--log-level: LEDGER_LOG_LEVEL; a repeatable flag takes a
comma-separated list). Other flags come from the command line only, which
wins over the environment.` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	var logs logOptions
	logs.register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnv(cmd); err != nil {
			return err
		}
		l, err := logs.logger(cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		withLogger(cmd, l)
		return nil
	}
	root.AddCommand(
		newVersionCmd(),
		newEnvCmd(),
		newDemoCmd(),
		newKeysCmd(),
		newMinerCmd(),
		newDuelCmd(),
		newVerifyCmd(),
		newTranscriptsCmd(),
		newProveCmd(),
		newVerifyProofCmd(),
		newConsistencyCmd(),
		newForksCmd(),
		newExportCmd(),
		newImportCmd(),
		newChainCmd(),
		newRatioCmd(),
		newNodeCmd(),
		newPeersCmd(),
		newServeCmd(),
		newVtrustCmd(),
		newWeightsCmd(),
		newDevnetCmd(),
	)
	documentEnv(root)
	strictGroups(root)
	root.SetFlagErrorFunc(flagError)
	return root
}
