package verify_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCheckFilesRecycledLog: Pebble writes a new log into the file of an
// obsolete one, so after a crash the newest log's records are followed by
// an older log's bytes. Replay stops there with every record replayed,
// and the audit used to call it a torn tail ("cut short or damaged"),
// as it does a log truly cut short. The image here is the newest log of a
// small store, its records only, written over a larger log's chunks (of
// another layout, relabelled as an older log's): no torn tail. The same
// image with the last record cut short is still one.
func TestCheckFilesRecycledLog(t *testing.T) {
	t.Parallel()
	small, _ := build(t, verifytest.Spec{Validators: 1, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"}})
	large, _ := build(t, verifytest.Spec{Validators: 2, Blocks: 8, PerBlock: 8, Envs: []string{"mult8", "sat"}})
	name, num, log := newestLogOf(t, small)
	_, _, older := newestLogOf(t, large)
	ends := recordEnds(t, log, num)
	if len(ends) < 2 {
		t.Fatalf("the small store's log has %d records", len(ends))
	}
	last := ends[len(ends)-1]
	old := relabel(t, older, uint32(num-1))
	if len(old) < last+64<<10 {
		t.Fatalf("the older log (%d bytes) does not reach two blocks past the new one's records (%d)", len(old), last)
	}
	for _, tc := range []struct {
		name string
		cut  int // the new log's bytes kept
		torn bool
	}{
		{"records whole", last, false},
		{"last record cut short", ends[len(ends)-2] + (last-ends[len(ends)-2])/2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyStore(t, small)
			image := append(append([]byte(nil), log[:tc.cut]...), old[tc.cut:]...)
			if err := os.WriteFile(filepath.Join(dir, name), image, 0o644); err != nil {
				t.Fatal(err)
			}
			torn, err := verify.CheckFiles(dir)
			if err != nil {
				t.Fatalf("CheckFiles: %v", err)
			}
			if got := torn != nil; got != tc.torn {
				t.Fatalf("torn log %+v, want torn %v", torn, tc.torn)
			}
			if tc.torn && torn.Offset != int64(ends[len(ends)-2]) {
				t.Fatalf("torn at %d, want at the last record, %d", torn.Offset, ends[len(ends)-2])
			}
		})
	}
}

// newestLogOf returns the name, number and bytes of dir's newest log.
func newestLogOf(t *testing.T, dir string) (string, uint64, []byte) {
	t.Helper()
	name, num, err := verify.NewestLog(dir)
	if err != nil || name == "" {
		t.Fatalf("no log in %s (%v)", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return name, num, b
}

// recordEnds returns where each record of log num ends, read as Pebble
// replays it.
func recordEnds(t *testing.T, log []byte, num uint64) []int {
	t.Helper()
	r := verify.ReadLog(bytes.NewReader(log), num)
	var ends []int
	for {
		rec, err := r.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, rec)
		}
		if errors.Is(err, io.EOF) {
			return ends
		}
		if err != nil {
			t.Fatalf("record after byte %d: %v", r.Offset(), err)
		}
		ends = append(ends, int(r.Offset()))
	}
}

// relabel rewrites every chunk of a recyclable log as log num's, with its
// checksum: the bytes an older log leaves in a file Pebble recycles.
func relabel(t *testing.T, log []byte, num uint32) []byte {
	t.Helper()
	const block, header = 32 << 10, 11
	out := append([]byte(nil), log...)
	for start := 0; start < len(out); start += block {
		for off := start; off+header <= min(start+block, len(out)); {
			h := out[off:]
			if h[6] < 5 || h[6] > 8 {
				break // padding, or the end
			}
			end := off + header + int(binary.LittleEndian.Uint16(h[4:6]))
			if end > min(start+block, len(out)) {
				t.Fatalf("chunk at %d runs past its block", off)
			}
			binary.LittleEndian.PutUint32(h[7:11], num)
			binary.LittleEndian.PutUint32(h[0:4], verify.ChunkChecksum(out[off+6:end]))
			off = end
		}
	}
	return out
}
