package ledger_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/internal/childtest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

const lockChildEnv = "LEDGER_LOCK_CHILD"

// TestReadersShareAStore: any number of readers open a store at once, in
// one process or several, and a reader and a writer exclude each other
// both ways, with an error naming the process that holds the store.
func TestReadersShareAStore(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	dir, v, rs := threeBlocks(t)

	r1, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("second reader in this process: %v", err)
	}
	if _, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network)); !isLockedBy(err, os.Getpid(), false) {
		t.Fatalf("writer beside two readers: %v, want ErrLocked naming this process, reading", err)
	}
	r1.Close()
	if _, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network)); !isLockedBy(err, os.Getpid(), false) {
		t.Fatalf("writer beside one reader: %v", err)
	}
	// The first reader's close left the second one's lock (POSIX drops all
	// of a process's locks on a file when any descriptor of it closes).
	pid, stop := lockChild(t, dir, "write", false)
	if pid != 0 {
		t.Fatal("a writer opened the store beside a reader in another process")
	}
	stop()
	h, err := r2.Head(v)
	if err != nil || h.Block.CID != rs[2].Block.CID {
		t.Fatalf("second reader's head: %v %v", h.Block.CID, err)
	}
	r2.Close()

	pid, stop = lockChild(t, dir, "read", true)
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("reader beside a reader in process %d: %v", pid, err)
	}
	r.Close()
	if _, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network)); !isLockedBy(err, pid, false) {
		t.Fatalf("writer beside a reader in process %d: %v", pid, err)
	}
	stop()

	pid, stop = lockChild(t, dir, "write", true)
	if _, err := ledger.OpenReadOnly(dir); !isLockedBy(err, pid, true) {
		t.Fatalf("reader beside the writer in process %d: %v", pid, err)
	}
	stop()
	w, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatalf("writer once every other holder is gone: %v", err)
	}
	if _, err := ledger.OpenReadOnly(dir); !isLockedBy(err, os.Getpid(), true) {
		t.Fatalf("reader beside this process's writer: %v", err)
	}
	w.Close()
}

// TestReaderWithoutLockFileKeepsWriterOut: a reader of a store copied
// without its LOCK file makes one (empty) to hold its shared lock on, and
// so still refuses a writer in another process. Left without one, the
// writer would lock a LOCK file of its own making and compact away the
// tables the reader reads: why a read-only open writes this one file
// where it can (spec/store.md, "Locking").
func TestReaderWithoutLockFileKeepsWriterOut(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	dir, _, _ := threeBlocks(t)
	lock := filepath.Join(dir, "LOCK")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, stop := lockChild(t, dir, "write", false); pid != 0 {
		stop()
		t.Fatal("a writer opened a store whose reader found no LOCK file")
	}
	if st, err := os.Stat(lock); err != nil || st.Size() != 0 {
		t.Fatalf("LOCK after a reader's open: %v, %v; want an empty file", st, err)
	}
	r.Close()
}

// TestOpenReadOnlyOnReadOnlyMount: a store on a read-only file system
// opens for reading, with or without its LOCK file. It needs a mount
// namespace (root and unshare(1)); elsewhere it is skipped.
func TestOpenReadOnlyOnReadOnlyMount(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	unshare := mountNamespace(t)
	dir, _, _ := threeBlocks(t)
	mnt := t.TempDir()
	for _, withLock := range []bool{true, false} {
		if !withLock {
			if err := os.Remove(filepath.Join(dir, "LOCK")); err != nil {
				t.Fatal(err)
			}
		}
		// The child opens mnt in a namespace where it is dir, read-only.
		mount := fmt.Sprintf(`mount --bind -o ro %q %q && mount -o remount,ro,bind %q && exec "$@"`, dir, mnt, mnt)
		_, stop := lockChild(t, mnt, "read", true, unshare, "-m", "sh", "-c", mount, "sh")
		stop()
	}
}

// TestBindMountIsOneStore: a store reached through a bind mount is the
// same store to the lock: a reader through the mount is refused beside a
// writer in the same process (POSIX locks never conflict within one, so
// only the process's own count keeps them apart). It needs a mount
// namespace (root and unshare(1)); elsewhere it is skipped.
func TestBindMountIsOneStore(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	unshare := mountNamespace(t)
	dir, _, _ := threeBlocks(t)
	mnt := t.TempDir()
	mount := fmt.Sprintf(`mount --bind %q %q && exec "$@"`, dir, mnt)
	_, stop := lockChild(t, dir+":"+mnt, "bind", true, unshare, "-m", "sh", "-c", mount, "sh")
	stop()
}

// mountNamespace returns unshare(1)'s path, or skips the test where it
// cannot make a mount namespace.
func mountNamespace(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a mount namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	if err := exec.Command(unshare, "-m", "true").Run(); err != nil {
		t.Skipf("cannot make a mount namespace: %v", err)
	}
	return unshare
}

func isLockedBy(err error, pid int, writing bool) bool {
	var le *ledger.LockedError
	return errors.Is(err, ledger.ErrLocked) && errors.As(err, &le) && le.PID == pid && le.Writing == writing
}

// lockChild starts this test binary as a process that opens dir ("read"
// or "write") and holds it until stop. It returns the child's pid, or 0
// if the child could not open the store (then want must be false).
func lockChild(t *testing.T, dir, mode string, want bool, wrap ...string) (pid int, stop func()) {
	t.Helper()
	c := childtest.Start(t, "TestLockChild", []string{lockChildEnv + "=" + mode + ":" + dir}, wrap...)
	switch {
	case c.First == "open" && want:
		return c.Pid(), c.Stop
	case c.First != "open" && !want:
		c.Stop()
		return 0, func() {}
	}
	c.Stop()
	t.Fatalf("lock child (%s) said %q", mode, c.First)
	return 0, nil
}

// TestLockChild is lockChild's process.
func TestLockChild(t *testing.T) {
	spec := os.Getenv(lockChildEnv)
	if spec == "" {
		t.Skip("only run by TestReadersShareAStore")
	}
	mode, dir, _ := strings.Cut(spec, ":")
	if mode == "bind" {
		// dir is "store:mount", the same directory twice: a writer on
		// one, then a reader on the other must be refused.
		store, mnt, _ := strings.Cut(dir, ":")
		w, err := ledger.Open(store, ledger.WithNetwork(recordtest.Network))
		if err != nil {
			os.Stdout.WriteString("refused: " + err.Error() + "\n")
			return
		}
		defer w.Close()
		if r, err := ledger.OpenReadOnly(mnt); err == nil {
			r.Close()
			os.Stdout.WriteString("a reader got in through the bind mount\n")
			return
		}
		childtest.Hold("open")
		return
	}
	open := ledger.OpenReadOnly
	if mode == "write" {
		open = ledger.Open
	}
	s, err := open(dir)
	if err != nil {
		os.Stdout.WriteString("refused: " + err.Error() + "\n")
		return
	}
	childtest.Hold("open")
	s.Close()
}
