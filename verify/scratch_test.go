package verify_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/verify"
)

// TestLeftScratchIsSweptOnlyOnceItsProcessIsGone: a verify killed outright
// leaves its challenge set's directory behind; the next set made beside it
// removes it, but never one a live process holds (another process's, or
// this one's), one too young to hold its lock yet, or one of an earlier
// release, which took no lock.
func TestLeftScratchIsSweptOnlyOnceItsProcessIsGone(t *testing.T) {
	parent := t.TempDir()
	killed, _ := scratchChild(t, parent)
	killed.kill(t)
	alive, stdin := scratchChild(t, parent)
	own, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	earlier := filepath.Join(parent, "ledger-verify-123456")
	if err := os.Mkdir(earlier, 0o700); err != nil {
		t.Fatal(err)
	}
	young := filepath.Join(parent, "ledger-verify-young")
	if err := os.Mkdir(young, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(young, "OWNER"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{killed.dir, alive.dir, own.Dir(), earlier} {
		age(t, d)
	}

	next, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if exists(t, killed.dir) {
		t.Errorf("the killed process's %s was not swept", killed.dir)
	}
	for what, d := range map[string]string{"another live process's": alive.dir, "this process's live": own.Dir(), "a young": young, "an earlier release's": earlier} {
		if !exists(t, d) {
			t.Errorf("%s set's directory %s was swept", what, d)
		}
	}

	// Once the other process is gone, its directory goes too.
	stdin.Close()
	alive.kill(t)
	age(t, alive.dir)
	last, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	if exists(t, alive.dir) {
		t.Errorf("%s was not swept once its process was gone", alive.dir)
	}
	if !exists(t, own.Dir()) || !exists(t, next.Dir()) {
		t.Error("a live set's directory was swept")
	}
}

// TestScratchChild is the process TestLeftScratchIsSweptOnlyOnceItsProcessIsGone
// starts: it makes a set under LEDGER_SCRATCH_CHILD, prints its directory
// and holds it until its standard input closes.
func TestScratchChild(t *testing.T) {
	parent := os.Getenv("LEDGER_SCRATCH_CHILD")
	if parent == "" {
		t.Skip("started by TestLeftScratchIsSweptOnlyOnceItsProcessIsGone")
	}
	set, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(set.Dir() + "\n")
	io.Copy(io.Discard, os.Stdin)
}

type child struct {
	cmd *exec.Cmd
	dir string
}

// scratchChild starts a process holding a set under parent.
func scratchChild(t *testing.T, parent string) (*child, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestScratchChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LEDGER_SCRATCH_CHILD="+parent)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd}
	t.Cleanup(func() { c.kill(t) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	c.dir = strings.TrimSpace(line)
	if filepath.Dir(c.dir) != parent {
		t.Fatalf("child's set is at %q, not under %s", c.dir, parent)
	}
	return c, stdin
}

// kill kills the child outright, as the OOM killer would, and waits for it.
func (c *child) kill(t *testing.T) {
	if c.cmd.ProcessState != nil {
		return
	}
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// age makes dir look made two minutes ago, past the sweep's grace.
func age(t *testing.T, dir string) {
	t.Helper()
	then := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(dir, then, then); err != nil {
		t.Fatal(err)
	}
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}
