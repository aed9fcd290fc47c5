// Command ledger is the validator node, auditor and miner tool of the
// evaluation ledger: one binary, subcommands per job. It is glue: flags,
// wiring and output; the work happens in the packages it calls.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes, documented in every command's help.
const (
	exitOK        = 0
	exitCheckFail = 1
	exitUsage     = 2
)

// checkFailed is returned by commands whose check ran and failed (exit 1),
// as opposed to usage or input errors (exit 2).
type checkFailed struct{ msg string }

func (e checkFailed) Error() string { return e.msg }

func main() {
	os.Exit(runIO(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line with no standard input.
func run(args []string, stdout, stderr io.Writer) int {
	return runIO(args, eofReader{}, stdout, stderr)
}

// runIO executes one command line and maps its error to an exit code.
func runIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "ledger: %v%s\n", err, envNote(cmd, err.Error()))
	var cf checkFailed
	if errors.As(err, &cf) {
		return exitCheckFail
	}
	var ie interruptedError
	if errors.As(err, &ie) {
		return ie.exitCode()
	}
	return exitUsage
}

// eofReader is an empty standard input.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
