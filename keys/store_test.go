package keys

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteKeyFileRace: writers racing to create one key file without
// overwrite: exactly one wins, the others get fs.ErrExist, and the file
// holds the winner's key.
func TestWriteKeyFileRace(t *testing.T) {
	t.Parallel()
	for _, named := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "hotkey.json")
		const writers = 8
		ks := make([]*Hotkey, writers)
		errs := make([]error, writers)
		for i := range ks {
			k, err := Generate()
			if err != nil {
				t.Fatal(err)
			}
			ks[i] = k
		}
		var wg sync.WaitGroup
		for i := range ks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = writeKeyFile(path, ks[i], false, named)
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("named %v: writers %d and %d both created the file", named, winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, fs.ErrExist):
				t.Fatalf("named %v: writer %d: %v", named, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("named %v: no writer created the file", named)
		}
		k, err := ReadKeyFile(path)
		if err != nil || k.Public() != ks[winner].Public() {
			t.Fatalf("named %v: key file holds another key than the winner's (%v)", named, err)
		}
	}
}
