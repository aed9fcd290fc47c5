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
re-execute and verify them.` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
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
		newExportCmd(),
		newImportCmd(),
		newChainCmd(),
		newRatioCmd(),
		newNodeCmd(),
		newPeersCmd(),
		newServeCmd(),
		newVtrustCmd(),
		newWeightsCmd(),
	)
	return root
}
