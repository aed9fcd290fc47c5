//go:build !linux

package main

import (
	"os"
	"runtime"
	"testing"
)

// openTerminal skips the test: pty_linux_test.go makes its pseudo-terminal
// the Linux way (/dev/ptmx, TIOCGPTN, /dev/pts/N).
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	t.Skipf("no pseudo-terminal for tests on %s", runtime.GOOS)
	return nil
}
