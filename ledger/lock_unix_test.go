//go:build unix

package ledger

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLockErrorsClassified: which errors from taking the store's lock
// mean another process holds it (F_SETLK's EAGAIN or EACCES, which
// lockError turns into a LockedError naming the holder), and which are
// returned as they are: the LOCK file could not be opened (its open fails
// with a PathError, EACCES among them: a directory the user may not read).
func TestLockErrorsClassified(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err              error
		held, readOnlyFS bool
	}{
		{err: unix.EAGAIN, held: true},
		{err: unix.EACCES, held: true},
		{err: fmt.Errorf("lock: %w", unix.EAGAIN), held: true},
		{err: &os.PathError{Op: "open", Path: "LOCK", Err: unix.EACCES}},
		{err: &os.PathError{Op: "open", Path: "LOCK", Err: unix.EAGAIN}},
		{err: &os.PathError{Op: "open", Path: "LOCK", Err: unix.EROFS}, readOnlyFS: true},
		{err: unix.EROFS, readOnlyFS: true},
		{err: unix.EPERM},
		{err: os.ErrNotExist},
		{err: errors.New("lock held by current process")},
	} {
		if got := heldElsewhere(c.err); got != c.held {
			t.Errorf("heldElsewhere(%#v) = %v, want %v", c.err, got, c.held)
		}
		if got := readOnlyMedium(c.err); got != c.readOnlyFS {
			t.Errorf("readOnlyMedium(%#v) = %v, want %v", c.err, got, c.readOnlyFS)
		}
		if !c.held {
			if got := lockError("dir", "dir/LOCK", c.err); got != c.err {
				t.Errorf("lockError(%v) = %v, want the error as it is", c.err, got)
			}
		}
	}
}
