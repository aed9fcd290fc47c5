//go:build windows

package local

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// allBytes locks the whole file, however long it grows.
const allBytes = ^uint32(0)

// lockExclusive takes f's exclusive lock (LockFileEx), failing at once if
// another open of the file holds it; closing the returned Closer releases
// it. It closes f if it cannot.
func lockExclusive(f *os.File) (io.Closer, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, allBytes, allBytes, new(windows.Overlapped))
	if err != nil {
		f.Close()
		return nil, err
	}
	return lockedFile{f}, nil
}

// lockedFile is the held LOCK file. Close unlocks it first: Windows
// releases a closed handle's locks only when it gets round to it, and the
// next open of the directory should find it free.
type lockedFile struct{ f *os.File }

func (l lockedFile) Close() error {
	windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
	return l.f.Close()
}
