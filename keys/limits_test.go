package keys

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Key files (ours and btcli's) are read at exactly maxKeyFileSize bytes
// (a valid file padded with trailing white space) and refused one byte
// past it, before parsing.
func TestKeyFileSizeBound(t *testing.T) {
	t.Parallel()
	k := fixedKey(t)
	ours, err := MarshalKeyFile(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		read func(string) (*Hotkey, error)
	}{
		{"key file", ours, ReadKeyFile},
		{"btcli file", []byte(btcliDev), ReadBtcliFile},
	} {
		for _, size := range []int{maxKeyFileSize, maxKeyFileSize + 1} {
			path := filepath.Join(dir, c.name+".json")
			padded := append(bytes.Clone(c.data), bytes.Repeat([]byte("\n"), size-len(c.data))...)
			if err := os.WriteFile(path, padded, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := c.read(path)
			switch {
			case size == maxKeyFileSize && err != nil:
				t.Fatalf("%s of exactly %d bytes: %v", c.name, size, err)
			case size == maxKeyFileSize && got == nil:
				t.Fatalf("%s of exactly %d bytes: no key", c.name, size)
			case size > maxKeyFileSize && (err == nil || !strings.Contains(err.Error(), "larger than")):
				t.Fatalf("%s of %d bytes: %v", c.name, size, err)
			}
		}
	}
}
