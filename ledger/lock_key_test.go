package ledger

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLockKeyNamesTheDirectory: the key of a store's lock is its
// directory's identity, not its spelling: the same through "..", through
// a symlink, and another for another directory. A directory that cannot
// be read keys by its path.
func TestLockKeyNamesTheDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	store, other := filepath.Join(root, "store"), filepath.Join(root, "other")
	for _, d := range []string{store, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := lockKey(filepath.Join(store, "LOCK"))
	if key == filepath.Join(store, "LOCK") {
		t.Fatalf("lockKey of a readable directory is its path %q", key)
	}
	spellings := []string{filepath.Join(other, "..", "store", "LOCK")}
	link := filepath.Join(root, "link")
	if err := os.Symlink(store, link); err == nil {
		spellings = append(spellings, filepath.Join(link, "LOCK"))
	} else {
		t.Logf("no symlink (%v): that spelling is not tried", err)
	}
	for _, s := range spellings {
		if got := lockKey(s); got != key {
			t.Errorf("lockKey(%s) = %q, want %q, the store's", s, got, key)
		}
	}
	if got := lockKey(filepath.Join(other, "LOCK")); got == key {
		t.Errorf("another directory has the store's key %q", key)
	}
	missing := filepath.Join(root, "missing", "LOCK")
	if got := lockKey(missing); got != missing {
		t.Errorf("lockKey of a missing directory = %q, want its path", got)
	}
}
