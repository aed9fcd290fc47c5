package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The state directory holds one snapshot, rewritten whole after every
// change (spec/chain.md, "Persistence"). The chain is small (at most 256
// neurons), so a JSON snapshot is simpler than a database and easy to
// inspect; the write is atomic (temporary file, fsync, rename, fsync of the
// directory) so a crash leaves either the old or the new snapshot.
const (
	stateFile = "state.json"
	lockFile  = "LOCK"
)

// store persists the state in a directory it holds an exclusive lock on.
type store struct {
	dir  string
	lock io.Closer
}

func openStore(dir string) (*store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("chain dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("chain dir: %w", err)
	}
	lock, err := lockExclusive(f)
	if err != nil {
		return nil, fmt.Errorf("chain dir %s is in use by another process: %w", dir, err)
	}
	return &store{dir: dir, lock: lock}, nil
}

// load returns the saved state, or nil if the directory has none.
func (st *store) load() (*state, error) {
	data, err := os.ReadFile(filepath.Join(st.dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chain state: %w", err)
	}
	var s state
	if err := strictJSON(data, &s); err != nil {
		return nil, fmt.Errorf("chain state %s: %w", filepath.Join(st.dir, stateFile), err)
	}
	// Format 1 differs from 2 only in keeping no epoch boundaries' states:
	// it reads as a format 2 state that has kept none yet. Both differ from
	// 3 in last_update.
	if s.Format < 1 || s.Format > stateFormat {
		return nil, fmt.Errorf("chain state %s: format %d, this program reads 1 to %d", filepath.Join(st.dir, stateFile), s.Format, stateFormat)
	}
	if s.Format < 3 {
		s.upgradeLastUpdate()
	}
	s.Format = stateFormat
	if err := s.Genesis.Check(); err != nil {
		return nil, fmt.Errorf("chain state %s: %w", filepath.Join(st.dir, stateFile), err)
	}
	if s.Nonces == nil {
		return nil, fmt.Errorf("chain state %s: no nonces", filepath.Join(st.dir, stateFile))
	}
	return &s, nil
}

func (st *store) save(s *state) error {
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	tmp := filepath.Join(st.dir, stateFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("chain state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("chain state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(st.dir, stateFile)); err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	// The rename is durable only once the directory entry is.
	d, err := os.Open(st.dir)
	if err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("chain state: %w", err)
	}
	return nil
}

func (st *store) close() error { return st.lock.Close() }

// strictJSON decodes one JSON value with no unknown fields and nothing
// after it.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) != 0 {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
