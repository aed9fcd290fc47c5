package keys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrInsecureKeyFile is wrapped when a key file is readable or writable by
// group or others: the secret may already have leaked, and we do not sign
// with it until the owner has looked.
var ErrInsecureKeyFile = errors.New("key file is accessible to group or others")

// WriteKeyFile stores k at path with mode 0600, creating missing parent
// directories with mode 0700. It never overwrites an existing file unless
// overwrite is set (the error then wraps fs.ErrExist). It refuses on
// systems other than Unix (ErrKeyFilesUnsupported).
//
// The file appears whole or not at all, and a crash (even SIGKILL) leaves
// no other copy of the secret behind where the system allows it:
//
//   - Without overwrite, on Linux, the key is written and synced to an
//     unnamed file (O_TMPFILE) that is then linked into place; link fails
//     if path exists, however recently it was made. A crash leaves either
//     nothing or the whole key file.
//   - Otherwise (overwrite, or no O_TMPFILE) the key is written to a
//     named temporary file in the same directory (see tempPattern), synced,
//     and then linked into place (or, with overwrite, renamed over path). A
//     crash between the temporary file's creation and its removal leaves it
//     behind, holding the secret with mode 0600: every WriteKeyFile sweeps
//     such leftovers from its directory first (sweepTemps).
//   - A file system without hard links cannot create a file that is both
//     whole and never clobbers another: WriteKeyFile refuses (wrapping
//     ErrNoHardLinks) rather than write in place. Overwrite needs only
//     rename and works there.
func WriteKeyFile(path string, k *Hotkey, overwrite bool) error {
	return writeKeyFile(path, k, overwrite, namedTempOnly)
}

// writeKeyFile is WriteKeyFile; named skips O_TMPFILE.
func writeKeyFile(path string, k *Hotkey, overwrite, named bool) error {
	if err := keyFilesSupported(); err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	data, err := MarshalKeyFile(k)
	if err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	sweepTemps(dir)
	if overwrite {
		err = replaceFile(dir, path, data)
	} else {
		err = createFile(dir, path, data, named)
	}
	if errors.Is(err, fs.ErrExist) {
		return existsError(path)
	}
	if err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// ErrKeyFilesUnsupported is wrapped when a key file is read or written on
// a system this package cannot protect key files on (keyFilesSupported):
// one without Unix permission bits, where a file others may read would go
// unnoticed, and where a crash's leftover secret could not be swept.
var ErrKeyFilesUnsupported = errors.New("key files are supported on Unix systems (Linux, macOS, FreeBSD) only")

// ErrNoHardLinks is wrapped when a key file cannot be created without
// replacing because its file system has no hard links.
var ErrNoHardLinks = errors.New("the file system does not support hard links, which creating a key file whole and without replacing another needs")

// Test knobs, left alone outside tests. crashAt, when set, is called at
// each named step of a write, so that a test can kill the process there;
// namedTempOnly makes WriteKeyFile skip O_TMPFILE, so that the named
// temporary file path is tested on Linux too (set in a child process,
// before any write).
var (
	crashAt       func(step string)
	namedTempOnly bool
)

func step(name string) {
	if crashAt != nil {
		crashAt(name)
	}
}

// createFile makes path hold data unless path exists; named skips
// O_TMPFILE.
func createFile(dir, path string, data []byte, named bool) error {
	if _, err := os.Lstat(path); err == nil {
		return fs.ErrExist // early, without writing the secret anywhere
	}
	if !named {
		err := createAnonymous(dir, path, data)
		if err == nil || errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	// No O_TMPFILE here (or no /proc to link it through): a named file.
	t, err := writeTemp(dir, data)
	if err != nil {
		return err
	}
	defer t.discard()
	step("linked-before")
	// link fails if path exists, even if it was created since the check
	// above.
	if err := os.Link(t.name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
		if noHardLinks(err) {
			return fmt.Errorf("%w: %v", ErrNoHardLinks, err)
		}
		return err
	}
	step("linked")
	return nil
}

// replaceFile makes path hold data, replacing whatever is there.
func replaceFile(dir, path string, data []byte) error {
	t, err := writeTemp(dir, data)
	if err != nil {
		return err
	}
	defer t.discard()
	step("renamed-before")
	return os.Rename(t.name, path)
}

func existsError(path string) error {
	return fmt.Errorf("key file %s: %w; not overwriting it", path, fs.ErrExist)
}

// writeSynced writes data and fsyncs f, and insists on mode 0600 whatever
// the umask did.
func writeSynced(f *os.File, data []byte) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	return err
}

// syncDir makes the new directory entry durable. Best effort: some systems
// cannot fsync a directory, and the file itself is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ReadKeyFile loads the hotkey stored at path. It refuses a file that group
// or others may read or write (wrapping ErrInsecureKeyFile, with the chmod
// that fixes it), and checks the file's public key and address against its
// seed (ParseKeyFile). It refuses on systems other than Unix
// (ErrKeyFilesUnsupported).
func ReadKeyFile(path string) (*Hotkey, error) {
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	k, err := ParseKeyFile(data)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// readPrivate reads a regular file of at most maxKeyFileSize bytes whose
// mode grants nothing to group or others. Type and mode are checked on the
// open file, so they are those of what is read.
func readPrivate(path string) ([]byte, error) {
	if err := keyFilesSupported(); err != nil {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	// Opened without blocking, then checked: opening a FIFO would
	// otherwise wait for a writer, and a check before opening could be
	// answered by a file swapped out before the open.
	f, err := openNoBlock(path)
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("key file %s is not a regular file", path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o; restrict it with: chmod 600 %s", ErrInsecureKeyFile, path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("key file %s: %w: larger than %d bytes", path, ErrKeyFile, maxKeyFileSize)
	}
	return data, nil
}
