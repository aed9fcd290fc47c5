package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Pebble locks a store's directory exclusively, for readers as for its
// writer. That refused what readers may safely do together: two audits of
// one store, or an audit beside the explorer on a stopped node's data. And
// it opened the LOCK file for writing, which a read-only mount refuses. So
// the store takes the lock itself, through the file system it gives
// Pebble: a writer still exclusively, readers shared. A reader excludes a
// writer as before: a writer compacts and deletes the tables a reader is
// reading. The system's locks take it (lock_unix.go, lock_windows.go):
// POSIX record locks on Unix (the writer's is Pebble's own), LockFileEx on
// Windows.
//
// POSIX locks do not exclude within one process, and closing any
// descriptor of the file drops all of the process's locks on it, so the
// process keeps one shared lock per directory and counts its holders.
// Windows' locks would exclude within a process, but the count gives both
// systems the same answers, naming this process.

// LockedError: the store is open in a way that excludes this open: for
// writing, when opening it in any way, or for reading, when opening it for
// writing. It wraps ErrLocked.
type LockedError struct {
	Dir string
	// PID is the process holding the lock (this one, if ThisProcess), or 0
	// when the system does not say.
	PID         int
	ThisProcess bool
	// Writing says the holder writes the store; otherwise it reads it.
	Writing bool
}

func (e *LockedError) Error() string {
	how := "reading"
	if e.Writing {
		how = "writing"
	}
	switch {
	case e.ThisProcess:
		return fmt.Sprintf("%v: open for %s in this process", ErrLocked, how)
	case e.PID > 0:
		return fmt.Sprintf("%v: open for %s by process %d", ErrLocked, how, e.PID)
	}
	return fmt.Sprintf("%v: open for %s by another process", ErrLocked, how)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// lockFS is the file system Pebble opens a store through: the one it was
// given, with the store's lock instead of Pebble's.
type lockFS struct {
	vfs.FS
	shared bool
}

func (fs lockFS) Unwrap() vfs.FS { return fs.FS }

// holders is this process's locks, by lockKey.
var holders = struct {
	sync.Mutex
	m map[string]*holder
}{m: map[string]*holder{}}

type holder struct {
	writer  bool
	readers int
	// file holds the lock: Pebble's for a writer, the shared lock's file
	// for readers (nil where the store could not be locked; see readLock).
	file io.Closer
}

func (fs lockFS) Lock(name string) (io.Closer, error) {
	if vfs.Root(fs.FS) != vfs.Default {
		// A test's in-memory file system keeps its own locks, exclusive,
		// in its own name space.
		return fs.FS.Lock(name)
	}
	path, err := lockPath(name)
	if err != nil {
		return nil, err
	}
	dir, key := filepath.Dir(path), lockKey(path)
	holders.Lock()
	defer holders.Unlock()
	h := holders.m[key]
	if h != nil && (h.writer || !fs.shared) {
		return nil, &LockedError{Dir: dir, PID: os.Getpid(), ThisProcess: true, Writing: h.writer}
	}
	if h != nil {
		h.readers++
		return h.releaser(key), nil
	}
	if !fs.shared {
		c, err := writeLock(fs.FS, name, path)
		if err != nil {
			return nil, lockError(dir, path, err)
		}
		h = &holder{writer: true, file: c}
		holders.m[key] = h
		return h.releaser(key), nil
	}
	f, err := readLock(path)
	if err != nil {
		return nil, lockError(dir, path, err)
	}
	h = &holder{readers: 1, file: f}
	holders.m[key] = h
	return h.releaser(key), nil
}

// lockPath is name's absolute path, symlinks resolved. POSIX locks never
// conflict within a process, so a second spelling (a symlink) that got
// past the count would turn a writer's exclusive lock into a shared one,
// and its close would drop the writer's lock altogether (lockKey).
func lockPath(name string) (string, error) {
	path, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		// No directory to lock in: the open fails on it, under its
		// own name.
		return path, nil
	}
	return filepath.Join(dir, filepath.Base(path)), nil
}

// releaser is one reference to h, released once however often it is
// closed: a second close would count another holder's reference away.
func (h *holder) releaser(key string) io.Closer {
	var once sync.Once
	return releaser(func() { once.Do(func() { h.release(key) }) })
}

// release drops one holder's reference; holders' mutex is not held.
func (h *holder) release(key string) {
	holders.Lock()
	defer holders.Unlock()
	if h.writer {
		delete(holders.m, key)
		h.file.Close()
		return
	}
	if h.readers--; h.readers > 0 {
		return
	}
	delete(holders.m, key)
	if h.file != nil {
		h.file.Close()
	}
}

// readLock takes a shared lock on the LOCK file at path. A store copied
// without its LOCK file gets one, if the file system allows; where it does
// not (a read-only medium), no writer can lock the store either, and the
// reader goes on without a lock.
func readLock(path string) (io.Closer, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if readOnlyMedium(err) || errors.Is(err, os.ErrPermission) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return lockShared(f)
}

// lockError names who holds a store that could not be locked.
func lockError(dir, path string, err error) error {
	if !heldElsewhere(err) {
		// Not a lock held elsewhere: the LOCK file could not be opened.
		return err
	}
	pid, writing := lockHolder(path)
	return &LockedError{Dir: dir, PID: pid, Writing: writing}
}

type releaser func()

func (r releaser) Close() error {
	r()
	return nil
}

// ReaderFS is fs (vfs.Default if nil) as a reader of a store opens its
// Pebble directory: with the shared lock OpenReadOnly takes, for code that
// opens the directory with Pebble itself (verify's file checks).
func ReaderFS(fs vfs.FS) vfs.FS {
	if fs == nil {
		fs = vfs.Default
	}
	return lockFS{FS: fs, shared: true}
}
