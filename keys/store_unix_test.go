//go:build unix

package keys

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Opening a FIFO for reading blocks until a writer comes: ReadKeyFile must
// refuse it without waiting. There is no check before the open (a swap
// after it would defeat it): the open itself must not block, so this test
// hangs if ReadKeyFile opens without O_NONBLOCK.
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

// A device is refused too, from its open descriptor.
func TestReadKeyFileRefusesDevice(t *testing.T) {
	t.Parallel()
	if _, err := ReadKeyFile("/dev/null"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("/dev/null: %v", err)
	}
}
