package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLedgerChild is the ledger command run as a child process by the
// tests below (LEDGER_TEST_CHILD holds its arguments, separated by newlines).
func TestLedgerChild(t *testing.T) {
	args, ok := os.LookupEnv("LEDGER_TEST_CHILD")
	if !ok {
		t.Skip("run as a child process by TestInterruptRemovesTemporaryFiles")
	}
	os.Exit(runIO(strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr))
}

// TestInterruptRemovesTemporaryFiles: verify and import of an archive on
// standard input, interrupted while they wait for its first block (the
// scratch store of their challenge set made). Interrupted, they left the
// scratch directory behind in the temporary directory; now it is removed,
// and the exit code is the shell's for the signal.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "l.car")
	if code, _, errs := ledgerRun(t, "export", "--data", dir, "--out", car); code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	raw, err := os.ReadFile(car)
	if err != nil {
		t.Fatal(err)
	}
	// The archive's header alone (a varint length, then the header): what
	// import reads before it makes its challenge set.
	n, w := binary.Uvarint(raw)
	header := raw[:w+int(n)]
	for _, c := range []struct {
		name string
		args []string
		sig  syscall.Signal
	}{
		{"verify", []string{"verify", "--car", "-"}, syscall.SIGINT},
		{"import", []string{"import", "--data", "STORE", "--car", "-"}, syscall.SIGTERM},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			args := strings.Join(c.args, "\n")
			args = strings.Replace(args, "STORE", filepath.Join(t.TempDir(), "store"), 1)
			cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerChild$")
			cmd.Env = append(os.Environ(), "LEDGER_TEST_CHILD="+args, "TMPDIR="+tmp)
			stdin, err := cmd.StdinPipe() // held open: the command waits for the archive
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := stdin.Write(header); err != nil {
				t.Fatal(err)
			}
			scratch := func() []string {
				m, _ := filepath.Glob(filepath.Join(tmp, "ledger-verify-*"))
				return m
			}
			for deadline := time.Now().Add(30 * time.Second); len(scratch()) == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no scratch directory appeared in %s; stderr: %s", tmp, stderr.String())
				}
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(c.sig) {
				t.Fatalf("exit %v, want code %d; stderr: %s", err, 128+int(c.sig), stderr.String())
			}
			if left := scratch(); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if !strings.Contains(stderr.String(), "temporary files are removed") {
				t.Errorf("stderr does not say why it stopped: %q", stderr.String())
			}
		})
	}
}

// TestOutFileRemovedOnInterrupt: an --out file being written is removed by
// the cleanups an interrupt runs, and forgotten once committed or
// discarded (the signal path itself is TestInterruptRemovesTemporaryFiles').
func TestOutFileRemovedOnInterrupt(t *testing.T) {
	// Not parallel: it runs every cleanup registered in the process.
	out := filepath.Join(t.TempDir(), "proof.json")
	o, err := createOut(out, ".proof-*.json", "the proof's file")
	if err != nil {
		t.Fatal(err)
	}
	tmp := o.Name()
	interrupts.mu.Lock()
	for _, fn := range interrupts.cleanup {
		fn()
	}
	interrupts.mu.Unlock()
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file %s still there after the interrupt's cleanups: %v", tmp, err)
	}
	o.discard()

	o, err = createOut(out, ".proof-*.json", "the proof's file")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.WriteString("{}"); err != nil {
		t.Fatal(err)
	}
	if err := o.commit(); err != nil {
		t.Fatal(err)
	}
	interrupts.mu.Lock()
	left := len(interrupts.cleanup)
	interrupts.mu.Unlock()
	if left != 0 {
		t.Errorf("%d cleanups still registered after commit", left)
	}
}
