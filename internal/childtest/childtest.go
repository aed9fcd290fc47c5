// Package childtest runs one of a test binary's own tests as a separate
// process that holds something (a store, a lock) for as long as its
// standard input stays open: what another process holds is what file
// locks, crash recovery and leftover sweeping must be tested against.
//
// The child says it is ready, or why not, on its first line of output.
package childtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Child is a running child process.
type Child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// First is the child's first line of output, without its newline.
	First string
}

// Start runs the test named test (an exact name) of this binary as a
// child, with env added to this process's environment, and waits for its
// first line. wrap, if given, is a command line the child runs under
// (unshare -m sh -c ..., say). The child is killed when tb ends, if it is
// still running.
func Start(tb testing.TB, test string, env []string, wrap ...string) *Child {
	tb.Helper()
	args := append(append([]string(nil), wrap...), os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &Child{cmd: cmd, stdin: stdin}
	tb.Cleanup(c.Kill)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		c.Kill()
		tb.Fatalf("child %s said %q before it ended (%v); its standard error:\n%s", test, line, err, stderr.String())
	}
	c.First = strings.TrimSuffix(line, "\n")
	return c
}

// Pid is the child's process ID.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Stop closes the child's standard input, which lets it finish, and waits
// for it to end.
func (c *Child) Stop() {
	c.stdin.Close()
	c.wait()
}

// Kill kills the child outright, as the OOM killer would, and waits for
// it to end.
func (c *Child) Kill() {
	if c.cmd.ProcessState == nil {
		c.cmd.Process.Kill()
	}
	c.wait()
}

func (c *Child) wait() {
	if c.cmd.ProcessState == nil {
		c.cmd.Wait()
	}
}

// Hold is the child's side: it prints ready as its first line, then
// waits until its standard input closes.
func Hold(ready string) {
	os.Stdout.WriteString(ready + "\n")
	io.Copy(io.Discard, os.Stdin)
}
