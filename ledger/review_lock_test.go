package ledger_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestReviewSymlinkedStoreSharesTheLock: a store opened through a symlink
// to its directory is the same store. In one process the lock is counted
// by path, and POSIX locks never conflict within a process, so a second
// spelling of the path must not get past the count: a reader beside this
// process's writer converts the writer's exclusive lock into a shared one,
// and its close drops the writer's lock altogether, letting a second
// writer in from another process.
func TestReviewSymlinkedStoreSharesTheLock(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	dir, _, _ := threeBlocks(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}

	w, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(link)
	if err == nil {
		r.Close()
		if pid, stop := lockChild(t, dir, "write", true); pid != 0 {
			stop()
			t.Fatalf("a reader opened the store through a symlink beside this process's writer, and once it closed, process %d opened it for writing too", pid)
		}
		t.Fatal("a reader opened the store through a symlink beside this process's writer")
	}
	if !isLockedBy(err, os.Getpid(), true) {
		t.Fatalf("reader through a symlink beside this process's writer: %v, want ErrLocked naming this process, writing", err)
	}
	w.Close()

	r, err = ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if w, err := ledger.Open(link, ledger.WithNetwork(recordtest.Network)); err == nil {
		w.Close()
		t.Fatal("a writer opened the store through a symlink beside this process's reader")
	} else if !isLockedBy(err, os.Getpid(), false) {
		t.Fatalf("writer through a symlink beside this process's reader: %v, want ErrLocked naming this process, reading", err)
	}
}

// TestReviewReaderLockClosedTwice: closing a reader's lock (ReaderFS) a
// second time releases nothing more. The process counts its readers of a
// store; a second Close counted another reader's hold away and dropped
// the shared lock under it, letting a writer in from another process.
func TestReviewReaderLockClosedTwice(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		t.Skip("running as the lock child")
	}
	dir, _, _ := threeBlocks(t)
	l, err := ledger.ReaderFS(nil).Lock(filepath.Join(dir, "LOCK"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ledger.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l.Close()
	l.Close()
	// Fails, saying the child opened the store, if it could.
	lockChild(t, dir, "write", false)
}
