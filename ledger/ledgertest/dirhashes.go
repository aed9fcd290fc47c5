package ledgertest

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// DirHashes maps every file name in dir to the SHA-256 of its bytes: two
// calls around an operation show whether it created, changed or deleted a
// store's files.
func DirHashes(tb testing.TB, dir string) map[string][32]byte {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := make(map[string][32]byte, len(entries))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}
