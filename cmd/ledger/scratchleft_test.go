package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifySaysScratchLeftBehind runs verify where its scratch store
// cannot be removed, in an append-only temporary directory (chattr +a;
// root on ext4 and like file systems): the audit's answer stands, and
// stderr names the directory left behind.
func TestVerifySaysScratchLeftBehind(t *testing.T) {
	dir, _ := builtLedger(t)
	tmp := t.TempDir()
	if out, err := exec.Command("chattr", "+a", tmp).CombinedOutput(); err != nil {
		t.Skipf("chattr +a %s: %v: %s (needs root and a file system with the attribute)", tmp, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-a", tmp).Run() })
	t.Setenv("TMPDIR", tmp)

	code, out, errs := ledgerRun(t, "verify", "--data", dir, "--no-reexec")
	if code != 0 || !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	left, err := filepath.Glob(filepath.Join(tmp, "ledger-verify-*"))
	if err != nil || len(left) != 1 {
		t.Fatalf("scratch directories in TMPDIR: %v %v", left, err)
	}
	if want := "warning: the scratch directory " + left[0] + " is left behind"; !strings.Contains(errs, want) {
		t.Fatalf("stderr %q does not say %q", errs, want)
	}
	if ents, err := os.ReadDir(left[0]); err != nil || len(ents) != 0 {
		t.Fatalf("what could be removed of it was not: %v %v", ents, err)
	}
}
