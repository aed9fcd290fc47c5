package verify

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrDamagedFile is wrapped by CheckFiles' errors: a file of the store's
// Pebble directory is damaged.
var ErrDamagedFile = errors.New("damaged store file")

// CheckFiles checks the Pebble files of the closed store in dir, byte for
// byte, before an audit opens it with OpenStore. It opens the directory
// read-only, which reads the MANIFEST and replays the write-ahead logs
// (Pebble fails on damage there, except in the newest log, whose damage it
// takes for a crash's torn tail: checkNewestLog tells the two apart where
// the log says), then reads every block of every live table, each of
// which carries a checksum.
//
// The audit proper reads only what the signed chains link, so without
// this a damaged block holding only derived index entries, a table's
// filter or properties would go unnoticed until the node next reads it,
// and a damaged log would quietly cost the blocks written after it. It
// reads every table once, sequentially: about the audit's own I/O again.
func CheckFiles(dir string) error {
	manifest, err := currentManifest(dir)
	if err != nil {
		return err
	}
	if manifest == "" {
		return fmt.Errorf("%s holds no Pebble store (no MANIFEST marker)", dir)
	}
	if err := checkManifest(dir, manifest); err != nil {
		return err
	}
	db, err := pebble.Open(dir, &pebble.Options{ReadOnly: true, ErrorIfNotExists: true, Logger: discardLog{}, EventListener: tolerateCorruption()})
	if err != nil {
		return fmt.Errorf("%w: open %s (its MANIFEST, logs and tables): %v", ErrDamagedFile, dir, err)
	}
	defer db.Close()
	if err := checkNewestLog(dir); err != nil {
		return err
	}
	levels, err := db.SSTables()
	if err != nil {
		return fmt.Errorf("%w: list tables of %s: %v", ErrDamagedFile, dir, err)
	}
	for _, level := range levels {
		for _, t := range level {
			name := t.BackingSSTNum.String() + ".sst"
			if err := checkTable(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("%w: table %s: %v", ErrDamagedFile, name, err)
			}
		}
	}
	return nil
}

func checkTable(path string) error {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return err
	}
	r, err := sstable.NewReader(context.Background(), readable, sstable.ReaderOptions{})
	if err != nil {
		readable.Close()
		return err
	}
	defer r.Close() // closes readable
	return r.ValidateBlockChecksums()
}

// tolerateCorruption replaces Pebble's default reaction to a damaged
// file, Logger.Fatalf, which the store's logger turns into a panic in
// whichever goroutine found it (a background one ends the process): the
// read that hit the damage returns the error, and the audit reports it.
func tolerateCorruption() *pebble.EventListener {
	return &pebble.EventListener{DataCorruption: func(pebble.DataCorruptionInfo) {}}
}

// discardLog keeps Pebble quiet while CheckFiles opens a directory: what
// matters is the error it returns.
type discardLog struct{}

func (discardLog) Infof(string, ...any)           {}
func (discardLog) Errorf(string, ...any)          {}
func (discardLog) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
