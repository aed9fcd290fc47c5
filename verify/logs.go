package verify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	crerrors "github.com/cockroachdb/errors"
	"github.com/cockroachdb/pebble/v2/record"
)

// checkNewestLog reads the store's newest write-ahead log to its end.
//
// Opening a store replays that log and stops, without an error, at the
// first record that does not check out, taking it for the torn tail a
// crash leaves. Pebble tells damage from a torn tail only by valid chunks
// in later 32 KiB blocks of the log, so a flipped bit in the log's last
// block silently drops every record from the damaged one on: blocks that
// were durable and acknowledged. A log that was closed cleanly ends with
// an end-of-file trailer, though, so a damaged record with the trailer
// after it cannot be a torn tail. Without a trailer (a crash) the damage
// is accepted as a torn tail, as Pebble does, and returned: a crash leaves
// a log so, and so does a copy cut short, which no file of the store can
// tell apart, so the audit says what was not replayed.
func checkNewestLog(dir string) (*TornLog, error) {
	name, num, err := newestLog(dir)
	if err != nil || name == "" {
		return nil, err
	}
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	at, err := firstDamaged(newLogReader(record.NewReader, f, num))
	if err == nil {
		return nil, nil
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		return nil, rerr
	}
	if i := bytes.Index(data[min(int(at)+1, len(data)):], eofTrailer(num)); i >= 0 {
		return nil, fmt.Errorf("%w: log %s: the record at byte %d is damaged (%v), yet the log was closed cleanly (its end-of-file trailer is at byte %d): opening the store would take the damage for a torn tail and drop every record from there on",
			ErrDamagedFile, name, at, err, int(at)+1+i)
	}
	if tail := data[min(int(at), len(data)):]; len(tail) == len(eofTrailer(num)) && tail[4] == 0 && tail[5] == 0 {
		// A chunk of no payload, where the trailer goes: the trailer
		// itself, damaged. Every record was replayed.
		return nil, nil
	}
	if recycledTail(data, at, num) {
		// The log's records end there, in a file Pebble reused: every
		// record was replayed.
		return nil, nil
	}
	return &TornLog{Log: name, Offset: at, Size: int64(len(data))}, nil
}

// TornLog is a store's newest write-ahead log that ends torn: the record
// at Offset is cut short or does not check out, and no end-of-file
// trailer follows it, so Pebble took it for the tail a crash leaves and
// replayed the log up to Offset only. It is no failure (a crash cannot be
// told from a copy cut short), but the blocks written from there on, if
// any, are not in the store the audit reads (spec/verify.md).
type TornLog struct {
	// Log is the file's name in the store's directory.
	Log string `json:"log"`
	// Offset is where the torn record starts; Size the file's length.
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
}

func (t *TornLog) String() string {
	return fmt.Sprintf("the store's log %s ends torn at byte %d (of %d): the record there is cut short or damaged, so it and whatever followed were not replayed; a crash leaves a log so, and so does a copy cut short",
		t.Log, t.Offset, t.Size)
}

// replayedLog names the log whose replay failed in err, an error of
// pebble.Open, and where its first damaged record starts: Pebble's error
// says neither in its message, but carries the log's number in a detail.
func replayedLog(dir string, err error) (name string, at int64, ok bool) {
	for _, d := range crerrors.GetAllDetails(err) {
		var num uint64
		if _, serr := fmt.Sscanf(d, "replaying wal %d,", &num); serr != nil {
			continue
		}
		name = fmt.Sprintf("%06d.log", num)
		f, oerr := os.Open(filepath.Join(dir, name))
		if oerr != nil {
			return "", 0, false
		}
		defer f.Close()
		at, rerr := firstDamaged(newLogReader(record.NewReader, f, num))
		return name, at, rerr != nil
	}
	return "", 0, false
}

// checkManifest reads the store's current MANIFEST, the list of its
// tables, to its end. Opening a store takes the first record of it that
// does not check out for the end, wherever it is, and goes on with the
// tables as of the records before: damage anywhere can make tables
// vanish from the store, and an open that may write (the node's, or the
// audit's own) then deletes them as obsolete. The MANIFEST has no
// end-of-file trailer, so a torn last record (a crash while Pebble wrote
// it) is reported too: the node's next open repairs that case.
func checkManifest(dir, name string) error {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	if at, err := firstDamaged(newLogReader(record.NewReader, f, 0)); err != nil {
		return fmt.Errorf("%w: %s: the record at byte %d is damaged or torn (%v): opening the store would drop it and every table change after it",
			ErrDamagedFile, name, at, err)
	}
	return nil
}

// currentManifest names the MANIFEST the marker file points at: Pebble
// marks the current one with an empty file named
// marker.manifest.<seq>.<MANIFEST name>, the highest seq winning.
func currentManifest(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var name string
	var seq uint64
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "marker.manifest.")
		if !ok {
			continue
		}
		s, m, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		if v, err := strconv.ParseUint(s, 10, 64); err == nil && (name == "" || v > seq) {
			name, seq = m, v
		}
	}
	return name, nil
}

// newestLog names the write-ahead log with the highest number, "" if none.
func newestLog(dir string) (string, uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", 0, err
	}
	var name string
	var num uint64
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), ".log")
		if !ok {
			continue
		}
		if v, err := strconv.ParseUint(n, 10, 64); err == nil && (name == "" || v > num) {
			name, num = e.Name(), v
		}
	}
	return name, num, nil
}

// eofTrailer is the chunk Pebble's log writer ends a log with when it
// closes it: a recyclable full-chunk header (no checksum, no payload)
// carrying the next log's number.
func eofTrailer(num uint64) []byte {
	t := make([]byte, 11)
	t[6] = 5 // recyclable full chunk
	binary.LittleEndian.PutUint32(t[7:], uint32(num+1))
	return t
}

// newLogReader calls record.NewReader, whose log-number parameter has a
// type of Pebble's internal package that this package cannot name.
func newLogReader[N ~uint64](newReader func(io.Reader, N) *record.Reader, r io.Reader, num uint64) *record.Reader {
	return newReader(r, N(num))
}

// firstDamaged reads every record to its end and returns the offset and
// error of the first that does not check out, nil at a clean end.
func firstDamaged(r *record.Reader) (int64, error) {
	for {
		at := r.Offset()
		rec, err := r.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, rec)
		}
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		if err != nil {
			return at, err
		}
	}
}
