//go:build windows

package winlock

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// allBytes locks the whole file, however long it grows.
const allBytes = ^uint32(0)

// Lock locks the whole of f, exclusive or shared, failing at once if
// another open of the file holds a conflicting lock; closing the returned
// Closer releases it and closes f. It closes f if it cannot lock.
func Lock(f *os.File, exclusive bool) (io.Closer, error) {
	var flags uint32 = windows.LOCKFILE_FAIL_IMMEDIATELY
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, allBytes, allBytes, new(windows.Overlapped)); err != nil {
		f.Close()
		return nil, err
	}
	return lockedFile{f}, nil
}

// lockedFile is a locked file. Close unlocks it first: Windows releases a
// closed handle's locks only when it gets round to it, and the next open
// should find the file free.
type lockedFile struct{ f *os.File }

func (l lockedFile) Close() error {
	windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
	return l.f.Close()
}
