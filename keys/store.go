package keys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrInsecureKeyFile is wrapped when a key file is readable or writable by
// group or others: the secret may already have leaked, and we do not sign
// with it until the owner has looked.
var ErrInsecureKeyFile = errors.New("key file is accessible to group or others")

// WriteKeyFile stores k at path with mode 0600, creating missing parent
// directories with mode 0700. It never overwrites an existing file unless
// overwrite is set (the error then wraps fs.ErrExist). The file appears
// whole or not at all: it is written to a temporary file in the same
// directory, synced, then linked (or, with overwrite, renamed) into place,
// so a crash cannot leave a truncated key behind.
func WriteKeyFile(path string, k *Hotkey, overwrite bool) error {
	data, err := MarshalKeyFile(k)
	if err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return existsError(path)
		}
	}
	tmp, err := os.CreateTemp(dir, ".hotkey-*.tmp")
	if err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // a no-op once renamed; removes the extra link otherwise
	if err := writeSynced(tmp, data); err != nil {
		return fmt.Errorf("write key file %s: %w", path, err)
	}
	if overwrite {
		err = os.Rename(tmpName, path)
	} else {
		// link fails if path exists, even if it was created since the check above.
		err = os.Link(tmpName, path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			err = writeExclusive(path, data) // a filesystem without hard links
		}
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

func existsError(path string) error {
	return fmt.Errorf("key file %s: %w; not overwriting it", path, fs.ErrExist)
}

// writeSynced writes data, fsyncs and closes f, and insists on mode 0600
// whatever the umask did.
func writeSynced(f *os.File, data []byte) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := writeSynced(f, data); err != nil {
		os.Remove(path)
		return err
	}
	return nil
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
// seed (ParseKeyFile).
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
// mode grants nothing to group or others. The mode is checked on the open
// file, so it is the mode of what is read.
func readPrivate(path string) ([]byte, error) {
	// Checked before opening too: opening a FIFO would block.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("key file %s is not a regular file", path)
	}
	f, err := os.Open(path)
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
	// Windows has no such bits; there the directory's ACL protects the file.
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
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
