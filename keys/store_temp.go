package keys

import (
	"os"
	"path/filepath"
	"strings"
)

// Temporary key files are named tempPrefix + random + tempSuffix in the
// key file's directory, so that a crash's leftovers are recognized as ours.
// (The previous writer used the same names; its leftovers are swept too.)
const (
	tempPrefix  = ".hotkey-"
	tempSuffix  = ".tmp"
	tempPattern = tempPrefix + "*" + tempSuffix
)

// tempFile is a named temporary key file, locked (lockFile) for as long as
// it exists so that no other writer's sweep removes it.
type tempFile struct {
	f    *os.File
	name string
}

// createTemp creates and locks a new temporary file in dir.
func createTemp(dir string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return nil, err
	}
	// Locked before anything is written: a sweep removes only files
	// that are unlocked and not empty (sweepTemps). Where the file system
	// has no locks, sweeps cannot lock either, so they leave the file be.
	_ = lockFile(f)
	step("temp-created")
	return &tempFile{f: f, name: f.Name()}, nil
}

// writeTemp creates a temporary file in dir holding data, synced. The
// caller discards it.
func writeTemp(dir string, data []byte) (*tempFile, error) {
	t, err := createTemp(dir)
	if err != nil {
		return nil, err
	}
	if err := writeSynced(t.f, data); err != nil {
		t.discard()
		return nil, err
	}
	step("temp-written")
	return t, nil
}

// discard removes the temporary name (after a link, the extra one; after a
// rename, a no-op), then closes the file, which unlocks it: removing first
// means no sweep can ever see it unlocked.
func (t *tempFile) discard() {
	os.Remove(t.name)
	t.f.Close()
}

// sweepTemps removes the temporary key files that writes killed before
// they finished left in dir: those no live writer holds locked. Best
// effort: a file it cannot open, lock or remove is left alone. An empty
// one is left too (it holds no secret, and a writer may not have locked
// it yet).
func sweepTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, tempSuffix) {
			continue
		}
		sweepTemp(filepath.Join(dir, name))
	}
}

func sweepTemp(path string) {
	f, err := openNoBlock(path)
	if err != nil {
		return
	}
	defer f.Close()
	if !tryLockFile(f) {
		return // a live writer's
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return
	}
	os.Remove(path)
}
