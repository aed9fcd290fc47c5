package node

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/affine-ledger/ledger/ledger"
)

// Liveness is what a data directory tells of the node on it.
type Liveness struct {
	// Running: a node answers on the control socket, or a process holds
	// the store open for writing (a node whose control socket could not
	// be made: it runs without one).
	Running bool
	// Unclean, of a node that does not run: its control socket was left
	// behind, so it did not stop by Close (it was killed, crashed, or the
	// machine stopped).
	Unclean bool
}

// CheckRunning tells whether a node runs on dataDir. The status file
// cannot: a stopped node's last status stays, and reads like a running
// one's. A node listens on its control socket while it runs and removes
// it when it stops; it holds its store's lock while it runs, and the
// system drops the lock with the process, however it ends. It errs when
// neither can be read.
func CheckRunning(dataDir string) (Liveness, error) {
	sock := ControlSocket(dataDir)
	conn, dialErr := net.DialTimeout("unix", sock, 2*time.Second)
	if dialErr == nil {
		// The node answers an empty request with an error and hangs up.
		conn.Close()
		return Liveness{Running: true}, nil
	}
	unclean := errors.Is(dialErr, syscall.ECONNREFUSED)
	lockFile := filepath.Join(StoreDir(dataDir), "LOCK")
	if _, err := os.Stat(lockFile); errors.Is(err, fs.ErrNotExist) {
		return Liveness{Unclean: unclean}, nil
	}
	// A reader's lock, taken only while nothing answers on the socket
	// and held for no longer than this: a node that starts in that
	// instant fails to lock its store, and says so.
	lock, err := ledger.ReaderFS(nil).Lock(lockFile)
	if err == nil {
		lock.Close()
		return Liveness{Unclean: unclean}, nil
	}
	var locked *ledger.LockedError
	if errors.As(err, &locked) {
		// Readers share the lock with this one: locked is a writer.
		return Liveness{Running: locked.Writing}, nil
	}
	return Liveness{}, fmt.Errorf("is a node running on %s? %s answers nothing (%v), and its store's lock: %w", dataDir, sock, dialErr, err)
}
