//go:build unix

package keys

import (
	"errors"
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting: opening a FIFO
// with O_NONBLOCK returns at once, and on a regular file the flag changes
// nothing. O_NOCTTY keeps a terminal from becoming the controlling one.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

// lockFile takes f's exclusive advisory lock (flock), which the kernel
// drops when the process dies, however it dies.
func lockFile(f *os.File) error {
	return flock(f, syscall.LOCK_EX)
}

// tryLockFile takes f's exclusive lock if no one holds it.
func tryLockFile(f *os.File) bool {
	return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// noHardLinks reports whether a link error says the file system has no
// hard links (FAT answers EPERM; others EOPNOTSUPP).
func noHardLinks(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOTSUP)
}

// keyFilesSupported: Unix has the permission bits readPrivate checks and
// the flock that sweepTemps relies on.
func keyFilesSupported() error { return nil }
