package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
)

// Every command's --data names a store directory or a node's data
// directory, whose store is node.StoreDir; the functions here are the one
// place that tells them apart, so that every command reads and writes the
// same store for the same --data.

// findStore returns the store --data dir names, if one exists: dir
// itself, or the store of the node whose data directory dir is.
func findStore(dir string) (string, bool) {
	for _, d := range []string{dir, node.StoreDir(dir)} {
		if m, _ := filepath.Glob(filepath.Join(d, "MANIFEST-*")); len(m) > 0 {
			return d, true
		}
	}
	return "", false
}

// storeDir accepts a store directory or a node data directory holding one
// in store/.
func storeDir(dir string) (string, error) {
	if d, ok := findStore(dir); ok {
		return d, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return "", usageError{fmt.Sprintf("--data: %v", err)}
	}
	return "", usageError{fmt.Sprintf("--data %s holds no ledger store (neither it nor %s)", dir, node.StoreDir(dir))}
}

// newStoreDir is where a command that creates a store when there is none
// (import) puts it: the existing store as storeDir finds it; else the
// store of a node's data directory, so that the node and every other
// command read it; else dir itself, if it is missing or empty. A store
// made in a node's data directory itself would be found before the node's
// by findStore, and the node would never see it; one made among other
// files (a local chain's directory, a home directory by a typo) would mix
// Pebble's files with theirs, so that is refused.
func newStoreDir(dir string) (string, error) {
	if d, ok := findStore(dir); ok {
		return d, nil
	}
	if isNodeDataDir(dir) {
		return node.StoreDir(dir), nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dir, nil
	case err != nil:
		return "", usageError{fmt.Sprintf("--data: %v", err)}
	case len(entries) > 0:
		return "", usageError{fmt.Sprintf("--data %s is neither a ledger store nor a node's data directory, and not empty: it holds %s; give a new or empty directory",
			dir, listEntries(entries))}
	}
	return dir, nil
}

// listEntries names the first few of a directory's entries, for an error.
func listEntries(entries []fs.DirEntry) string {
	const shown = 3
	var names []string
	for i, e := range entries {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(entries)-shown))
			break
		}
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// isNodeDataDir reports whether dir holds what a node keeps in its data
// directory: the store directory (even empty) or the p2p identity.
func isNodeDataDir(dir string) bool {
	if st, err := os.Stat(node.StoreDir(dir)); err == nil && st.IsDir() {
		return true
	}
	_, err := os.Stat(node.IdentityFile(dir))
	return err == nil
}

// readableStore is the store directory a read-only command reads for
// --data, held with a reader's lock until release. A store a running node
// holds is read through a checkpoint the node makes for this process
// (node.RequestCheckpoint): a snapshot as of now, which note says on w.
func readableStore(dataDir string, w io.Writer) (dir string, release func(), err error) {
	sd, err := storeDir(dataDir)
	if err != nil {
		return "", nil, err
	}
	lock, err := ledger.ReaderFS(nil).Lock(filepath.Join(sd, "LOCK"))
	if err == nil {
		return sd, func() { lock.Close() }, nil
	}
	if !errors.Is(err, ledger.ErrLocked) {
		return "", nil, fmt.Errorf("open ledger store %s: %w", sd, err)
	}
	// "store/" and "store/." are a node's store too.
	nodeDir := filepath.Dir(filepath.Clean(sd))
	if node.StoreDir(nodeDir) != filepath.Clean(sd) {
		return "", nil, fmt.Errorf("open ledger store %s: %w", sd, err)
	}
	if _, serr := os.Lstat(node.ControlSocket(nodeDir)); errors.Is(serr, fs.ErrNotExist) {
		// No node runs there: the holder is some other process (an
		// import), which the lock error names; a node's checkpoint is
		// not to be had.
		return "", nil, fmt.Errorf("open ledger store %s: %w (no node runs on %s: it has no %s)",
			sd, err, nodeDir, filepath.Base(node.ControlSocket(nodeDir)))
	}
	ck, cerr := node.RequestCheckpoint(nodeDir)
	if cerr != nil {
		return "", nil, fmt.Errorf("open ledger store %s: %w; %v", sd, err, cerr)
	}
	fmt.Fprintf(w, "ledger: %s is open in a running node; reading a checkpoint of it taken now\n", sd)
	return ck.Dir, func() { ck.Close() }, nil
}
