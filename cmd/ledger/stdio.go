package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stdio is the path that names the command's standard input (--car) or
// output (--out), so that an archive can go through a pipe: from another
// host (ssh host ledger export --out -), from a download, or straight
// from export into verify or import.
const stdio = "-"

// displayName is how messages name path: stdio as std ("standard input"
// or "standard output").
func displayName(path, std string) string {
	if path == stdio {
		return std
	}
	return path
}

// openInput opens path for reading, stdio for the command's standard
// input, which must not be a terminal: an archive is not typed in. size is
// the input's length when it is a regular file (a redirection from one
// included), else -1: a pipe's is unknown.
func openInput(cmd *cobra.Command, path string) (r io.ReadCloser, size int64, err error) {
	if path == stdio {
		in := cmd.InOrStdin()
		if isTerminal(in) {
			return nil, -1, usageError{"--car -: standard input is a terminal; pipe or redirect the archive into it"}
		}
		return io.NopCloser(in), regularSize(in), nil
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, -1, usageError{fmt.Sprintf("--car %s: %v", path, err)}
	}
	// A directory opens, and its read error would be taken for the end
	// of the archive.
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, -1, usageError{fmt.Sprintf("--car %s: is a directory; name the archive's file", path)}
	}
	return f, regularSize(f), nil
}

// regularSize is r's length if r is a regular file, else -1.
func regularSize(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return -1
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// isTerminal reports whether a standard stream is a terminal: a binary
// archive is neither written to one nor read from one.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
