package rmtree_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/internal/rmtree"
)

func TestRemoveAll(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	for _, d := range []string{"a/b/c", "a/d", "e"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/c/f", "a/g", "h"} {
		if err := os.WriteFile(filepath.Join(tree, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(tree, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := rmtree.RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
	// A symbolic link is removed, not followed.
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the link's target went too: %v", err)
	}
	if err := rmtree.RemoveAll(filepath.Join(root, "missing")); err != nil {
		t.Fatalf("a path that does not exist: %v", err)
	}
}

// TestRemoveAllReportsWhatStays makes a tree that cannot be removed, an
// entry of an append-only directory (chattr +a; root on ext4 and like
// file systems), and requires the error.
func TestRemoveAllReportsWhatStays(t *testing.T) {
	parent := t.TempDir()
	tree := filepath.Join(parent, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+a", parent).CombinedOutput(); err != nil {
		t.Skipf("chattr +a %s: %v: %s (needs root and a file system with the attribute)", parent, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-a", parent).Run() })
	if err := rmtree.RemoveAll(tree); err == nil {
		t.Fatal("no error, and the tree stays")
	}
	if _, err := os.Lstat(tree); err != nil {
		t.Fatalf("the tree is gone after all: %v", err)
	}
}
