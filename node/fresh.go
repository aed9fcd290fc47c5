package node

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// madeByStart is what a start of the node may make in its data directory
// and did not find there: a start that fails removes it, so that a failed
// start of a new data directory (a listen address in use, a status port
// taken, a mistyped flag the node itself refuses) leaves nothing behind, in
// particular no identity and no empty store that the next start, or
// another command, would take for a node's data.
type madeByStart struct {
	// paths did not exist before the start.
	paths []string
	// dirs are the data directory and its ancestors that did not exist,
	// deepest first: removed while empty.
	dirs []string
}

// noteFresh records which of the entries a start makes under dataDir do
// not exist yet.
func noteFresh(dataDir string) madeByStart {
	var m madeByStart
	for _, p := range []string{StoreDir(dataDir), filepath.Dir(IdentityFile(dataDir)), IdentityFile(dataDir),
		StatusFile(dataDir), ControlSocket(dataDir), CheckpointsDir(dataDir)} {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			m.paths = append(m.paths, p)
		}
	}
	for d := filepath.Clean(dataDir); ; {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		m.dirs = append(m.dirs, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return m
}

// remove removes what the start made. A directory is removed only if it
// is empty then: whatever else appeared in it is not the start's.
func (m madeByStart) remove() {
	for _, p := range m.paths {
		os.RemoveAll(p)
	}
	for _, d := range m.dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
