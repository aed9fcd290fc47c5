//go:build windows

package local

import (
	"io"
	"os"

	"github.com/affine-ledger/ledger/internal/winlock"
)

// lockExclusive takes f's exclusive lock (LockFileEx), failing at once if
// another open of the file holds it; closing the returned Closer releases
// it. It closes f if it cannot.
func lockExclusive(f *os.File) (io.Closer, error) { return winlock.Lock(f, true) }
