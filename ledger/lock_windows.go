//go:build windows

package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/windows"

	"github.com/affine-ledger/ledger/internal/winlock"
)

// The store's lock on Windows: LockFileEx on the whole of LOCK, shared for
// readers, exclusive for the writer, both failing at once rather than
// waiting. Pebble's own lock on Windows opens LOCK sharing nothing, which
// would keep readers from sharing the store, so the writer takes its lock
// here too. Windows does not say who holds a lock: refusals name no
// process (LockedError.PID is 0).

// writeLock takes the writer's exclusive lock on the LOCK file at path,
// creating the file if missing.
func writeLock(_ vfs.FS, _, path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return winlock.Lock(f, true)
}

// lockShared takes a reader's shared lock on f; the returned Closer
// releases it.
func lockShared(f *os.File) (io.Closer, error) { return winlock.Lock(f, false) }

// lockKey is the key of path's lock in holders: the volume and file index
// of the store's directory, so that one store is one key however it is
// reached (another spelling, a symlink, a junction), or the path where the
// directory cannot be read (the open fails on it, under its name).
func lockKey(path string) string {
	dir, err := windows.UTF16PtrFromString(filepath.Dir(path))
	if err != nil {
		return path
	}
	// A directory opens only with backup semantics; reading its
	// attributes needs no more access than that.
	h, err := windows.CreateFile(dir, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return path
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &info) != nil {
		return path
	}
	return fmt.Sprintf("volume %x file %x:%x", info.VolumeSerialNumber, info.FileIndexHigh, info.FileIndexLow)
}

// readOnlyMedium reports whether err says the medium is write-protected.
func readOnlyMedium(err error) bool { return errors.Is(err, windows.ERROR_WRITE_PROTECT) }

// heldElsewhere reports whether err, from taking the lock, says another
// process holds it: LockFileEx answers ERROR_LOCK_VIOLATION, and opening
// LOCK answers ERROR_SHARING_VIOLATION while a process that locked it the
// way Pebble does (opened sharing nothing) has it open.
func heldElsewhere(err error) bool {
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}

// lockHolder tells whether the lock on path is a writer's: if a shared
// lock can be had, readers hold it (or it was released since, and the
// caller may try again). Windows does not name the process: pid is 0. The
// probe holds its shared lock for an instant: a writer opening the store
// in that instant is refused, as the readers the probe found refuse it.
func lockHolder(path string) (pid int, writing bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, true
	}
	c, err := lockShared(f)
	if err != nil {
		return 0, true
	}
	c.Close()
	return 0, false
}
