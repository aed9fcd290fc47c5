//go:build unix

package local

import (
	"io"
	"os"
	"syscall"
)

// lockExclusive takes f's exclusive lock (flock), failing at once if
// another open of the file holds it; closing the returned Closer (f)
// releases it. It closes f if it cannot.
func lockExclusive(f *os.File) (io.Closer, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
