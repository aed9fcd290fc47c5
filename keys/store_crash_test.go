//go:build unix

package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Environment of the child process TestWriteKeyFileCrashChild.
const (
	crashDirEnv       = "LEDGER_KEYS_CRASH_DIR"
	crashStepEnv      = "LEDGER_KEYS_CRASH_STEP"
	crashOverwriteEnv = "LEDGER_KEYS_CRASH_OVERWRITE"
	crashNamedEnv     = "LEDGER_KEYS_CRASH_NAMED"
)

// TestWriteKeyFileCrash kills (SIGKILL) a child process writing a key file
// at each step of the write, then checks what a crash may leave: the key
// file is absent or whole (with overwrite: the old key or the new, whole),
// no secret lies anywhere else once the next write has swept the directory,
// and the unnamed-file path (Linux) leaves nothing at all.
func TestWriteKeyFileCrash(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("running as the crash child")
	}
	t.Parallel()
	type crashCase struct {
		step             string
		overwrite, named bool
		// leftover: a temporary file holding the secret is expected
		// before the sweep; keyWritten: the key file holds the new key.
		leftover, keyWritten bool
	}
	cases := []crashCase{
		{step: "temp-created", named: true},
		{step: "temp-written", named: true, leftover: true},
		{step: "linked-before", named: true, leftover: true},
		{step: "linked", named: true, leftover: true, keyWritten: true},
		{step: "temp-created", overwrite: true},
		{step: "temp-written", overwrite: true, leftover: true},
		{step: "renamed-before", overwrite: true, leftover: true},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases,
			crashCase{step: "anonymous-written"},
			crashCase{step: "linked", keyWritten: true})
	}
	seed := fixedSeed()
	secret := hex.EncodeToString(seed[:])
	for _, c := range cases {
		name := c.step
		if c.named {
			name += "/named"
		}
		if c.overwrite {
			name += "/overwrite"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "hotkey.json")
			old, err := Generate()
			if err != nil {
				t.Fatal(err)
			}
			if c.overwrite {
				if err := WriteKeyFile(path, old, false); err != nil {
					t.Fatal(err)
				}
			}
			runWriteCrashChild(t, dir, c.step, c.overwrite, c.named)

			// The key file: absent, the old key or the new, whole.
			k, err := ReadKeyFile(path)
			switch {
			case c.keyWritten:
				if err != nil || k.Public() != fixedKey(t).Public() {
					t.Fatalf("key file after the crash: %v, want the new key", err)
				}
			case c.overwrite:
				if err != nil || k.Public() != old.Public() {
					t.Fatalf("key file after the crash: %v, want the old key whole", err)
				}
			default:
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("key file after the crash: %v, want none", err)
				}
			}
			if got := secretHolders(t, dir, secret, path); (len(got) > 0) != c.leftover {
				t.Fatalf("temporary files holding the secret: %q, want some: %v", got, c.leftover)
			}
			// The next write, of another key file in the directory,
			// sweeps the leftovers.
			if err := WriteKeyFile(filepath.Join(dir, "next.json"), old, false); err != nil {
				t.Fatal(err)
			}
			if got := secretHolders(t, dir, secret, path); len(got) > 0 {
				t.Fatalf("after the next write, files still holding the secret: %q", got)
			}
		})
	}
}

// secretHolders lists the files in dir other than keyFile whose content
// holds secret.
func secretHolders(t *testing.T, dir, secret, keyFile string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == keyFile {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(secret)) {
			got = append(got, e.Name())
		}
	}
	return got
}

func runWriteCrashChild(t *testing.T, dir, step string, overwrite, named bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteKeyFileCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashStepEnv+"="+step)
	if overwrite {
		cmd.Env = append(cmd.Env, crashOverwriteEnv+"=1")
	}
	if named {
		cmd.Env = append(cmd.Env, crashNamedEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child: %v, want killed at step %s; output:\n%s", err, step, out)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v, want killed at step %s; output:\n%s", err, step, out)
	}
}

// TestWriteKeyFileCrashChild writes the fixed key into the directory the
// parent names and kills itself with SIGKILL at the step it names.
func TestWriteKeyFileCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run by TestWriteKeyFileCrash")
	}
	want := os.Getenv(crashStepEnv)
	crashAt = func(step string) {
		if step == want {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	namedTempOnly = os.Getenv(crashNamedEnv) != ""
	err := WriteKeyFile(filepath.Join(dir, "hotkey.json"), fixedKey(t), os.Getenv(crashOverwriteEnv) != "")
	t.Fatalf("WriteKeyFile returned (%v) without reaching step %s", err, want)
}

// TestSweepSparesLiveTemp: a temporary file a live writer holds locked is
// not swept, though it holds a secret; once released (as by a crash), it is.
// Not parallel: a lock lives on in a child process forked (by a parallel
// test) before it execs, so closing the file here would not release it.
func TestSweepSparesLiveTemp(t *testing.T) {
	dir := t.TempDir()
	tmp, err := writeTemp(dir, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	sweepTemps(dir)
	if _, err := os.Stat(tmp.name); err != nil {
		t.Fatalf("a live writer's temporary file was swept: %v", err)
	}
	tmp.f.Close() // unlocks, as the kernel does for a killed process
	sweepTemps(dir)
	if _, err := os.Stat(tmp.name); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a released temporary file was not swept: %v", err)
	}
	if !strings.HasPrefix(filepath.Base(tmp.name), tempPrefix) {
		t.Fatalf("temporary name %s", tmp.name)
	}
}
