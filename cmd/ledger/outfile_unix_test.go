//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestOutReplacesFile: export, prove and consistency replace an existing
// --out file, as cp and a shell's > do, but whole or not at all: a run
// that fails leaves the old file as it was and nothing beside it; one that
// succeeds leaves the new file under the name, with the old file's mode
// (an archive a web server publishes stays readable to it). A new file
// gets the mode the umask gives (not the 0600 of a temporary file); a
// symlink at --out, a FIFO or a device is written through, as > does, not
// replaced by a file.
func TestOutReplacesFile(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	rows := minerRows(t, dir, verifytest.Miner(1).String())
	v := verifytest.Key(0).Public().String()
	for _, tc := range []struct {
		name      string
		args, bad []string // bad fails once --out is open
	}{
		{"export", []string{"export", "--data", dir}, []string{"export", "--data", filepath.Join(dir, "missing")}},
		{"prove", []string{"prove", "--data", dir, "--transcript", rows[0].Transcript},
			[]string{"prove", "--data", dir, "--transcript", rows[0].Block}},
		{"consistency", []string{"consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "1"},
			[]string{"consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "99"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			outDir := t.TempDir()
			path := filepath.Join(outDir, "out")
			old := []byte("an older file\n")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			// Whatever the umask: the mode to keep is the file's.
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := ledgerRun(t, append(tc.bad, "--out", path)...); code == 0 {
				t.Fatalf("%v: exit 0, want a failure (%s)", tc.bad, errs)
			}
			if got, _ := os.ReadFile(path); string(got) != string(old) {
				t.Errorf("a failed run changed the file at --out: %q", got)
			}
			onlyFiles(t, outDir, "out")

			if code, _, errs := ledgerRun(t, append(tc.args, "--out", path)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			if got, _ := os.ReadFile(path); len(got) == 0 || string(got) == string(old) {
				t.Errorf("the file at --out was not replaced: %q", got)
			}
			if got := perm(t, path); got != 0o644 {
				t.Errorf("replaced file: mode %v; want 0644, the old file's", got)
			}
			onlyFiles(t, outDir, "out")

			// A new file: the mode a file the shell creates has.
			ref, err := os.Create(filepath.Join(outDir, "ref"))
			if err != nil {
				t.Fatal(err)
			}
			ref.Close()
			fresh := filepath.Join(outDir, "fresh")
			if code, _, errs := ledgerRun(t, append(tc.args, "--out", fresh)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			if got, want := perm(t, fresh), perm(t, ref.Name()); got != want {
				t.Errorf("new file: mode %v; want %v, as os.Create makes", got, want)
			}

			// A symlink is written through.
			link := filepath.Join(outDir, "link")
			if err := os.Symlink("out", link); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := ledgerRun(t, append(tc.args, "--out", link)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("--out a symlink: %v; want the symlink kept", err)
			}
			if got, _ := os.ReadFile(path); string(got) == string(old) {
				t.Error("--out a symlink: its target was not replaced")
			}

			// A FIFO is written to, as a device such as /dev/null is
			// (a root's export --out /dev/null replaced it with a file).
			fifo := filepath.Join(outDir, "fifo")
			if err := unix.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			read := make(chan []byte, 1)
			go func() {
				f, err := os.Open(fifo) // until the command opens it
				if err != nil {
					read <- nil
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				read <- b
			}()
			if code, _, errs := ledgerRun(t, append(tc.args, "--out", fifo)...); code != 0 {
				t.Fatalf("%v --out FIFO: exit %d: %s", tc.args, code, errs)
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				if err == nil {
					err = fmt.Errorf("mode %v", st.Mode())
				}
				t.Errorf("--out a FIFO: %v; want the FIFO kept and written to", err)
			} else if b := <-read; len(b) == 0 {
				t.Error("--out a FIFO: nothing was written to it")
			}
			onlyFiles(t, outDir, "fifo", "fresh", "link", "out", "ref")

			// The help says an existing file is replaced.
			if _, help := runStopped(t, tc.name, "--help"); !strings.Contains(help, "replaced") {
				t.Errorf("%s --help does not say an existing --out is replaced:\n%s", tc.name, help)
			}
		})
	}
}

func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestOutFollowsDanglingSymlink: a symlink at --out whose target does not
// exist yet is followed as a shell's > follows it: the target is created,
// relative to the symlink's directory, and the symlink stays. A target
// whose directory is missing fails, naming the target, and creates nothing.
func TestOutFollowsDanglingSymlink(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	rows := minerRows(t, dir, verifytest.Miner(1).String())
	v := verifytest.Key(0).Public().String()
	for name, args := range map[string][]string{
		"export":      {"export", "--data", dir},
		"prove":       {"prove", "--data", dir, "--transcript", rows[0].Transcript},
		"consistency": {"consistency", "--data", dir, "--validator", v, "--from", "0", "--to", "1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outDir := t.TempDir()
			if err := os.Mkdir(filepath.Join(outDir, "links"), 0o755); err != nil {
				t.Fatal(err)
			}
			// Relative to links/, not to the working directory.
			link := filepath.Join(outDir, "links", "out")
			if err := os.Symlink("../made", link); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := ledgerRun(t, append(args, "--out", link)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("--out a dangling symlink: %v; want the symlink kept", err)
			}
			if got, err := os.ReadFile(filepath.Join(outDir, "made")); err != nil || len(got) == 0 {
				t.Errorf("--out a dangling symlink: its target: %v (%d bytes); want it written", err, len(got))
			}
			onlyFiles(t, filepath.Join(outDir, "links"), "out")

			// A chain of symlinks ends in the file written.
			chain := filepath.Join(outDir, "chain")
			if err := os.Symlink("links/out2", chain); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../made2", filepath.Join(outDir, "links", "out2")); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := ledgerRun(t, append(args, "--out", chain)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if got, err := os.ReadFile(filepath.Join(outDir, "made2")); err != nil || len(got) == 0 {
				t.Errorf("--out a chain of symlinks: its end: %v (%d bytes); want it written", err, len(got))
			}

			missing := filepath.Join(outDir, "missing")
			if err := os.Symlink("nowhere/x.out", missing); err != nil {
				t.Fatal(err)
			}
			code, _, errs := ledgerRun(t, append(args, "--out", missing)...)
			if code != 2 || !strings.Contains(errs, filepath.Join(outDir, "nowhere", "x.out")) {
				t.Errorf("--out a symlink into a missing directory: exit %d, %q; want 2 naming the target", code, errs)
			}
			if st, err := os.Lstat(missing); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("--out a symlink into a missing directory: %v; want the symlink kept", err)
			}
			onlyFiles(t, outDir, "chain", "links", "made", "made2", "missing")
		})
	}
}
