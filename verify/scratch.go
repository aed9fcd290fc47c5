package verify

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/affine-ledger/ledger/internal/rmtree"
)

// A challenge set's scratch directory grows with the audit (130 MB at 1M
// transcripts). Close removes it, and so does a command stopped by a
// signal, but a verify killed outright (SIGKILL, the OOM killer, a power
// cut), or interrupted on Windows, where open files cannot be removed,
// leaves it behind in the temporary directory, and nothing else ever
// would. So each set holds a lock on a file in its directory for as long
// as it lives, and a new set removes its predecessors that nobody holds.
//
// The lock is Pebble's file lock (fcntl on Unix, an exclusive open on
// Windows): the operating system drops it when its process dies, and
// Pebble refuses it twice in one process, so a set open in this process
// is never taken for a leftover.
const (
	scratchPattern = "ledger-verify-*"
	scratchPrefix  = "ledger-verify-"
	scratchOwner   = "OWNER"
	scratchStore   = "set" // the Pebble store, beside OWNER
)

// scratchGrace is how old a directory must be before it may be swept:
// one just made has no lock yet. A directory's time changes when an entry
// is added, so its OWNER file being made restarts it.
const scratchGrace = time.Minute

// makeScratch makes a scratch directory under parent ("" for the system's
// temporary directory) and locks it as this process's. Release the lock
// before removing the directory: Windows removes no open file.
func makeScratch(parent string) (dir string, owner io.Closer, err error) {
	dir, err = os.MkdirTemp(parent, scratchPattern)
	if err != nil {
		return "", nil, err
	}
	owner, err = vfs.Default.Lock(filepath.Join(dir, scratchOwner))
	if err != nil {
		rmtree.RemoveAll(dir)
		return "", nil, fmt.Errorf("lock the scratch directory %s: %w", dir, err)
	}
	return dir, owner, nil
}

// sweepScratch removes the scratch directories under parent that no live
// set holds, except keep, and returns how many it removed. It is best
// effort: an entry it cannot judge or remove is left alone.
func sweepScratch(parent, keep string, now time.Time) int {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if dir == keep || !abandoned(dir, e, now) {
			continue
		}
		if rmtree.RemoveAll(dir) == nil {
			removed++
		}
	}
	return removed
}

// abandoned reports whether dir is a set's scratch directory whose process
// is gone. A directory without an OWNER file is not judged: it is either
// being made, or an earlier release's, whose sets took no lock.
func abandoned(dir string, e fs.DirEntry, now time.Time) bool {
	info, err := e.Info()
	if err != nil || now.Sub(info.ModTime()) < scratchGrace {
		return false
	}
	path := filepath.Join(dir, scratchOwner)
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	lock, err := vfs.Default.Lock(path)
	if err != nil {
		return false // held: its set is alive, in this process or another
	}
	lock.Close()
	return true
}
