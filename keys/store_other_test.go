//go:build !unix

package keys

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Key files are refused here, both ways, and a refused write leaves
// nothing behind: no key file, no temporary file holding the secret.
func TestKeyFilesRefusedWithoutUnix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "hotkey.json")
	if err := WriteKeyFile(path, fixedKey(t), false); !errors.Is(err, ErrKeyFilesUnsupported) {
		t.Fatalf("WriteKeyFile: %v, want ErrKeyFilesUnsupported", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("after a refused write, the directory holds %v (%v), want nothing", entries, err)
	}
	data, err := MarshalKeyFile(fixedKey(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(path); !errors.Is(err, ErrKeyFilesUnsupported) {
		t.Fatalf("ReadKeyFile: %v, want ErrKeyFilesUnsupported", err)
	}
}
