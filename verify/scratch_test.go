package verify_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/childtest"
	"github.com/affine-ledger/ledger/verify"
)

// TestLeftScratchIsSweptOnlyOnceItsProcessIsGone: a verify killed outright
// leaves its challenge set's directory behind; the next set made beside it
// removes it, but never one a live process holds (another process's, or
// this one's), one too young to hold its lock yet, or one of an earlier
// release, which took no lock.
func TestLeftScratchIsSweptOnlyOnceItsProcessIsGone(t *testing.T) {
	parent := t.TempDir()
	killed, killedDir := scratchChild(t, parent)
	killed.Kill()
	alive, aliveDir := scratchChild(t, parent)
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
	for _, d := range []string{killedDir, aliveDir, own.Dir(), earlier} {
		age(t, d)
	}

	next, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if exists(t, killedDir) {
		t.Errorf("the killed process's %s was not swept", killedDir)
	}
	for what, d := range map[string]string{"another live process's": aliveDir, "this process's live": own.Dir(), "a young": young, "an earlier release's": earlier} {
		if !exists(t, d) {
			t.Errorf("%s set's directory %s was swept", what, d)
		}
	}

	// Once the other process is gone, its directory goes too.
	alive.Kill()
	age(t, aliveDir)
	last, err := verify.NewDiskSet(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	if exists(t, aliveDir) {
		t.Errorf("%s was not swept once its process was gone", aliveDir)
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
	childtest.Hold(set.Dir())
}

// scratchChild starts a process holding a set under parent, and returns
// it and the set's directory.
func scratchChild(t *testing.T, parent string) (*childtest.Child, string) {
	t.Helper()
	c := childtest.Start(t, "TestScratchChild", []string{"LEDGER_SCRATCH_CHILD=" + parent})
	if filepath.Dir(c.First) != parent {
		t.Fatalf("child's set is at %q, not under %s", c.First, parent)
	}
	return c, c.First
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
