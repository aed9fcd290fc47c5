package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files read whole are read at their bound and refused one byte past it,
// with the path and the bound in the error.
func TestReadSmallFileBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, max := range []int64{maxTokenFileBytes, maxGenesisFileBytes} {
		at := filepath.Join(dir, "at")
		past := filepath.Join(dir, "past")
		if err := os.WriteFile(at, make([]byte, max), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(past, make([]byte, max+1), 0o600); err != nil {
			t.Fatal(err)
		}
		if data, err := readSmallFile(at, max); err != nil || int64(len(data)) != max {
			t.Fatalf("file of exactly %d bytes: %d read, %v", max, len(data), err)
		}
		if _, err := readSmallFile(past, max); err == nil || !strings.Contains(err.Error(), past) || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("file of %d bytes, bound %d: %v", max+1, max, err)
		}
	}
	if _, err := readSmallFile(filepath.Join(dir, "missing"), 10); err == nil {
		t.Fatal("missing file read")
	}
}

// The commands that read such files refuse an oversized one as a usage
// error (exit 2) naming the flag.
func TestOversizedFileFlags(t *testing.T) {
	t.Parallel()
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", maxGenesisFileBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"chain", "serve", "--dir", t.TempDir(), "--listen", "127.0.0.1:0", "--genesis", big}, "--genesis"},
		{[]string{"chain", "register", "--chain", "local+http://127.0.0.1:1", "--admin-token", big, "--hotkey", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"}, "--admin-token"},
	} {
		_, _, err := runLedger(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.flag) || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("%s: %v", c.args[1], err)
		}
		if _, ok := err.(usageError); !ok {
			t.Errorf("%s: %T is not a usage error", c.args[1], err)
		}
	}
}

// A mnemonic (file or standard input) is read at maxMnemonicBytes and
// refused one byte past it.
func TestMnemonicInputBound(t *testing.T) {
	t.Parallel()
	if s, err := readLimited(strings.NewReader(strings.Repeat(" ", maxMnemonicBytes))); err != nil || len(s) != maxMnemonicBytes {
		t.Fatalf("exactly %d bytes: %d read, %v", maxMnemonicBytes, len(s), err)
	}
	if _, err := readLimited(strings.NewReader(strings.Repeat(" ", maxMnemonicBytes+1))); err == nil || !strings.Contains(err.Error(), "not a mnemonic") {
		t.Fatalf("%d bytes: %v", maxMnemonicBytes+1, err)
	}
}
