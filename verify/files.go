package verify

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/affine-ledger/ledger/ledger"
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
// which carries a checksum. A newest log that ends torn is no error; it
// is returned, for the audit to report.
//
// The audit proper reads only what the signed chains link and the entries
// derived from them, so without this a damaged block holding only keys no
// lookup reaches, a table's filter or properties would go unnoticed until
// the node next reads it,
// and a damaged log would quietly cost the blocks written after it. It
// reads every table once, sequentially: about the audit's own I/O again.
// In the table formats the store writes, no checksum covers a table's
// footer; its padding, the only bytes no read looks at, must be zero.
func CheckFiles(dir string) (*TornLog, error) {
	manifest, err := currentManifest(dir)
	if err != nil {
		return nil, err
	}
	if manifest == "" {
		return nil, fmt.Errorf("%s holds no Pebble store (no MANIFEST marker)", dir)
	}
	return checkFiles(dir)
}

func checkFiles(dir string) (*TornLog, error) {
	// Under the store's reader lock: a writer rewrites the files read
	// here. The MANIFEST again, as a writer may have moved on before it.
	lock, err := ledger.ReaderFS(nil).Lock(filepath.Join(dir, "LOCK"))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer lock.Close()
	manifest, err := currentManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := checkManifest(dir, manifest); err != nil {
		return nil, err
	}
	db, err := pebble.Open(dir, &pebble.Options{FS: ledger.ReaderFS(nil), ReadOnly: true, ErrorIfNotExists: true, Logger: discardLog{}, EventListener: tolerateCorruption()})
	if errors.Is(err, ledger.ErrLocked) {
		return nil, err
	}
	if err != nil {
		if name, at, ok := replayedLog(dir, err); ok {
			return nil, fmt.Errorf("%w: log %s: the record at byte %d is damaged or cut short, where Pebble cannot take it for a crash's torn tail (a log before the newest, or a record after it checks out): %v", ErrDamagedFile, name, at, err)
		}
		return nil, fmt.Errorf("%w: open %s (its MANIFEST, logs and tables): %v", ErrDamagedFile, dir, err)
	}
	defer db.Close()
	torn, err := checkNewestLog(dir)
	if err != nil {
		return nil, err
	}
	levels, err := db.SSTables()
	if err != nil {
		return nil, fmt.Errorf("%w: list tables of %s: %v", ErrDamagedFile, dir, err)
	}
	for _, level := range levels {
		for _, t := range level {
			name := t.BackingSSTNum.String() + ".sst"
			if err := checkTable(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("%w: table %s: %v", ErrDamagedFile, name, err)
			}
		}
	}
	return torn, nil
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
	if err := r.ValidateBlockChecksums(); err != nil {
		return err
	}
	format, err := r.TableFormat()
	if err != nil {
		return err
	}
	return checkFooterPadding(readable, format)
}

// A footer without a checksum (tables before Pebble's v6 format): 53
// bytes, of which the first 41 hold the checksum type, the metaindex and
// index block handles (four varints) and zero padding; then the format
// version and the magic number.
const (
	uncheckedFooterLen  = 53
	uncheckedHandlesLen = 41
)

// checkFooterPadding refuses a table whose footer padding is not zero,
// where no checksum covers the footer. Pebble never reads that padding,
// so a flip there is the one change to such a table that reading every
// block does not see (the rest of the footer locates the blocks, and the
// version and magic are checked on open): the store would read the same,
// but its files are not the ones written.
func checkFooterPadding(f objstorage.Readable, format sstable.TableFormat) error {
	if format < sstable.TableFormatRocksDBv2 || format >= sstable.TableFormatPebblev6 {
		return nil
	}
	start := f.Size() - uncheckedFooterLen
	buf := make([]byte, uncheckedHandlesLen)
	if err := f.ReadAt(context.Background(), buf, start); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	off := 1 // the checksum type
	for range 4 {
		_, n := binary.Uvarint(buf[off:])
		if n <= 0 {
			return fmt.Errorf("footer at byte %d: a block handle that is not a varint", start)
		}
		off += n
	}
	for i := off; i < len(buf); i++ {
		if buf[i] != 0 {
			return fmt.Errorf("footer padding byte at %d is %#02x, not zero", start+int64(i), buf[i])
		}
	}
	return nil
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
