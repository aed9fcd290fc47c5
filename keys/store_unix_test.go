//go:build unix

package keys

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Opening a FIFO for reading blocks until a writer comes: ReadKeyFile must
// refuse it without opening it.
func TestReadKeyFileRefusesFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := ReadKeyFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
}
