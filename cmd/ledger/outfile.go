package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// An --out file (an archive, a proof) that exists is replaced, as cp and a
// shell's > replace it, but whole or not at all: the command writes a
// temporary file beside it and renames it over it once complete and
// synced, then syncs the directory, so that a command that fails or a
// machine that stops midway leaves either the old file or the new one
// under the name, never one cut short; an interrupted command removes the
// temporary file (onInterrupt). No prompt: a script must not hang.
//
// What a shell's > keeps, this keeps too: an existing file's permissions
// (an archive a web server publishes stays readable to it), a new file's
// from the umask (not the 0600 of a temporary file), a symlink (the file
// it names is replaced, or created if the symlink dangles: its target is
// relative to the symlink's directory), and a device or a FIFO (/dev/null,
// a named pipe: written to, never replaced by a file). Errors name --out
// and the path given, never the temporary file, and the symlink's target
// when it is the target that cannot be written.

// outFile is an --out file being written.
type outFile struct {
	*os.File
	// path is --out as given; target is where the file goes: path, or
	// the file a symlink at path names.
	path, target string
	// direct: the file is target itself (a device or a FIFO), not a
	// temporary file to rename.
	direct bool
	done   bool
	// forget drops the removal of the temporary file on an interrupt.
	forget func()
}

// createOut opens --out path for writing: a temporary file beside it
// named by pattern (a "*" in it becomes a random number), or the device or
// FIFO it is. what names the file wanted, for a directory given instead
// ("the archive's file").
func createOut(path, pattern, what string) (*outFile, error) {
	target, err := followLinks(path)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--out %s: %v", path, err)}
	}
	o := &outFile{path: path, target: target}
	if target != path {
		// The file goes where the symlink points, so its directory must
		// exist: the error names it rather than the symlink.
		dir := filepath.Dir(target)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			if err == nil {
				err = errors.New("not a directory")
			}
			return nil, usageError{fmt.Sprintf("--out %s is a symlink to %s, whose directory %s cannot be used: %v",
				path, target, dir, pathErr(err))}
		}
	}
	perm, keep := os.FileMode(0o666), false
	if st, err := os.Stat(o.target); err == nil {
		switch {
		case st.IsDir():
			return nil, usageError{fmt.Sprintf("--out %s: is a directory; name %s", path, what)}
		case st.Mode().IsRegular():
			// Created private, then given the old file's mode: the
			// umask would narrow it.
			perm, keep = st.Mode().Perm(), true
		default:
			f, err := os.OpenFile(o.target, os.O_WRONLY, 0)
			if err != nil {
				return nil, usageError{fmt.Sprintf("--out %s: cannot open it: %v", path, pathErr(err))}
			}
			o.File, o.direct = f, true
			return o, nil
		}
	}
	createPerm := perm
	if keep {
		createPerm = 0o600
	}
	forget, err := removedOnInterrupt(func() (string, error) {
		tmp, err := createTemp(filepath.Dir(o.target), pattern, createPerm)
		if err != nil {
			return "", err
		}
		if keep {
			if err := tmp.Chmod(perm); err != nil {
				tmp.Close()
				os.Remove(tmp.Name())
				return "", err
			}
		}
		o.File = tmp
		return tmp.Name(), nil
	})
	if err != nil {
		return nil, usageError{fmt.Sprintf("--out %s: cannot create it: %v", path, pathErr(err))}
	}
	o.forget = forget
	return o, nil
}

// maxLinks is how many symlinks followLinks follows before it gives up,
// as the kernel's ELOOP does.
const maxLinks = 40

// followLinks is the file path names once every symlink at path is
// followed, whether its target exists or not: a dangling symlink names the
// file to create, as a shell's > creates it. A relative target is relative
// to the directory of the symlink, read through its own symlinks first so
// that a ".." in the target goes where the kernel would take it.
func followLinks(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("cannot read the symlink: %v", pathErr(err))
		}
		if !filepath.IsAbs(dest) {
			dir := filepath.Dir(path)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			dest = filepath.Join(dir, dest)
		}
		path = dest
	}
	return "", fmt.Errorf("more than %d symlinks to follow", maxLinks)
}

// createTemp is os.CreateTemp with the file's permissions (before the
// umask) chosen: os.CreateTemp's are 0600.
func createTemp(dir, pattern string, perm os.FileMode) (*os.File, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// commit makes the written file the one at --out: it syncs and closes the
// temporary file, renames it over the target and syncs the directory, so
// the rename outlives a crash too.
func (o *outFile) commit() error {
	o.done = true
	if o.direct {
		if err := o.Close(); err != nil {
			return fmt.Errorf("--out %s: %w", o.path, err)
		}
		return nil
	}
	defer o.forget()
	err := o.Sync()
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.Name(), o.target)
	}
	if err != nil {
		os.Remove(o.Name())
		return fmt.Errorf("--out %s: %w", o.path, err)
	}
	syncDir(filepath.Dir(o.target))
	return nil
}

// discard closes and removes the temporary file unless commit ran: the
// file at --out stays as it was.
func (o *outFile) discard() {
	if o.done {
		return
	}
	o.done = true
	o.Close()
	if !o.direct {
		os.Remove(o.Name())
		o.forget()
	}
}

// syncDir makes a rename in dir durable. Best effort: some file systems
// cannot sync a directory, and the file itself is synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// pathErr is err without the *os.PathError's operation and path, which
// name the temporary file rather than --out.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
