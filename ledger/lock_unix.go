//go:build unix

package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// The store's lock on Unix: POSIX record locks on LOCK, F_RDLCK for
// readers beside each other, never beside the writer's F_WRLCK.

// writeLock takes the writer's exclusive lock: Pebble's own, an F_WRLCK
// on the whole file.
func writeLock(fs vfs.FS, name, _ string) (io.Closer, error) {
	return fs.Lock(name)
}

// lockShared takes a reader's shared lock on f; the returned Closer
// releases it.
func lockShared(f *os.File) (io.Closer, error) {
	spec := unix.Flock_t{Type: unix.F_RDLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &spec); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockKey is the key of path's lock in holders: the device and inode of
// the store's directory, so that one store is one key however it is
// reached (another spelling, a symlink, a bind mount), or the path where
// the directory cannot be read (the open fails on it, under its name).
func lockKey(path string) string {
	var st unix.Stat_t
	if unix.Stat(filepath.Dir(path), &st) != nil {
		return path
	}
	return fmt.Sprintf("device %d inode %d", st.Dev, st.Ino)
}

// readOnlyMedium reports whether err says the file system is mounted
// read-only.
func readOnlyMedium(err error) bool { return errors.Is(err, unix.EROFS) }

// heldElsewhere reports whether err, from taking the lock, says another
// process holds it (F_SETLK answers EAGAIN or EACCES), rather than that
// the LOCK file could not be opened.
func heldElsewhere(err error) bool {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return false
	}
	return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES)
}

// lockHolder asks the system (F_GETLK) who holds the lock on path: the
// process, and whether it writes. Where it cannot say, or the lock was
// released since (the caller may try again), it answers 0, writing.
func lockHolder(path string) (pid int, writing bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, true
	}
	defer f.Close()
	spec := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if unix.FcntlFlock(f.Fd(), unix.F_GETLK, &spec) != nil || spec.Type == unix.F_UNLCK {
		return 0, true
	}
	return int(spec.Pid), spec.Type == unix.F_WRLCK
}
