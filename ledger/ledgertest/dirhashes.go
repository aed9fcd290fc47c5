package ledgertest

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/affine-ledger/ledger/ledger"
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

// EmptyPebble makes dir a Pebble database with the store's options and no
// keys: a database that is no ledger store (it lacks the layout key).
func EmptyPebble(tb testing.TB, dir string) {
	tb.Helper()
	db, err := pebble.Open(dir, ledger.PebbleOptions())
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}
