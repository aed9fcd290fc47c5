package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// An --out file (an archive, a proof) is written to a temporary file
// beside it and renamed over it once complete and synced: a command that
// fails midway leaves no file under the final name that looks complete,
// and an older file there stays as it was. Errors name --out and the path
// given, never the temporary file.

// createBeside creates the temporary file beside path that --out path is
// written to, named by pattern (os.CreateTemp); what names the file wanted,
// for a directory given instead ("the archive's file").
func createBeside(path, pattern, what string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageError{fmt.Sprintf("--out %s: is a directory; name %s", path, what)}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usageError{fmt.Sprintf("--out %s: cannot create it: %v", path, err)}
	}
	return tmp, nil
}

// commitBeside syncs and closes tmp, made by createBeside, and renames it
// to path.
func commitBeside(tmp *os.File, path string) error {
	err := tmp.Sync()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}
