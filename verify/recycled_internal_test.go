package verify

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// putChunk writes at off a chunk of type typ of log num with payload, its
// header's checksum as Pebble computes it, and returns the chunk's end.
func putChunk(data []byte, off int, typ byte, num uint32, payload []byte) int {
	size := recyclableHeader
	if typ > firstRecyclableType+3 {
		size = walSyncHeader
	}
	h := data[off:]
	binary.LittleEndian.PutUint16(h[4:6], uint16(len(payload)))
	h[6] = typ
	binary.LittleEndian.PutUint32(h[7:11], num)
	end := off + size + copy(h[size:], payload)
	binary.LittleEndian.PutUint32(h[0:4], chunkChecksum(data[off+6:end]))
	return end
}

// TestChunkStart: a chunk starts where replay stopped unless too little
// of the block is left there for a header, which Pebble pads instead.
func TestChunkStart(t *testing.T) {
	for _, c := range []struct{ off, want int64 }{
		{0, 0},
		{100, 100},
		{logBlock - recyclableHeader, logBlock - recyclableHeader}, // a header just fits
		{logBlock - recyclableHeader + 1, logBlock},
		{logBlock - 1, logBlock},
		{logBlock, logBlock},
		{2*logBlock - 3, 2 * logBlock},
	} {
		if got := chunkStart(c.off); int64(got) != c.want {
			t.Errorf("chunkStart(%d) = %d, want %d", c.off, got, c.want)
		}
	}
}

// TestChunkLog: the log number of a chunk header, read only where a whole
// header lies within its block and the file, of a recyclable or WAL-sync
// type; with whole, only for a chunk whose payload lies there too and
// whose checksum checks out.
func TestChunkLog(t *testing.T) {
	const num = 7
	payload := []byte("payload")
	for _, c := range []struct {
		name    string
		size    int // of the file
		off     int
		typ     byte
		payload []byte
		edit    func([]byte)
		header  bool // chunkLog(.., false) finds it
		whole   bool // chunkLog(.., true) finds it
	}{
		{"chunk at the file's start", 100, 0, firstRecyclableType, payload, nil, true, true},
		{"recyclable full chunk", 100, 10, firstRecyclableType, payload, nil, true, true},
		{"last recyclable type", 100, 10, firstRecyclableType + 3, payload, nil, true, true},
		{"first WAL-sync type", 100, 10, firstRecyclableType + 4, payload, nil, true, true},
		{"last WAL-sync type", 100, 10, lastWALSyncType, payload, nil, true, true},
		{"legacy type", 100, 10, firstRecyclableType - 1, payload, nil, false, false},
		{"type past WAL-sync", 100, 10, lastWALSyncType + 1, payload, nil, false, false},
		{"damaged payload", 100, 10, firstRecyclableType, payload, func(d []byte) { d[10+recyclableHeader] ^= 1 }, true, false},
		{"header at the file's end", 50, 50 - recyclableHeader, firstRecyclableType, nil, nil, true, true},
		{"header past the file's end", 50, 50 - recyclableHeader + 1, firstRecyclableType, nil, nil, false, false},
		{"payload past the file's end", 10 + recyclableHeader + len(payload) - 1, 10, firstRecyclableType, payload, nil, true, false},
		{"WAL-sync header past the file's end", 10 + walSyncHeader - 1, 10, lastWALSyncType, nil, nil, false, false},
		{"header ending its block", logBlock + 100, logBlock - recyclableHeader, firstRecyclableType, nil, nil, true, true},
		{"header across blocks", logBlock + 100, logBlock - recyclableHeader + 1, firstRecyclableType, nil, nil, false, false},
		{"payload across blocks", logBlock + 100, logBlock - recyclableHeader - 1, firstRecyclableType, []byte("ab"), nil, true, false},
		{"payload ending its block", logBlock + 100, logBlock - recyclableHeader - 2, firstRecyclableType, []byte("ab"), nil, true, true},
		{"WAL-sync header across blocks", logBlock + 100, logBlock - walSyncHeader + 1, lastWALSyncType, nil, nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := make([]byte, c.size+walSyncHeader+len(c.payload))
			putChunk(data, c.off, c.typ, num, c.payload)
			data = data[:c.size]
			if c.edit != nil {
				c.edit(data)
			}
			for _, w := range []struct {
				whole, want bool
			}{{false, c.header}, {true, c.whole}} {
				n, ok := chunkLog(data, c.off, w.whole)
				if ok != w.want || ok && n != num {
					t.Errorf("chunkLog(whole %v) = %d, %v; want %v", w.whole, n, ok, w.want)
				}
			}
		})
	}
	if _, ok := chunkLog(make([]byte, 100), -1, false); ok {
		t.Error("a chunk before the file's start")
	}
}

// TestChunkLogReadsPebblesLog: the first chunk of a log Pebble wrote
// checks out, and names the log's own number; putChunk's checksum is
// chunkChecksum's, so only Pebble's bytes hold that to Pebble's masking.
func TestChunkLogReadsPebblesLog(t *testing.T) {
	dir := t.TempDir()
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("k"), []byte("v"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	name, num, err := newestLog(dir)
	if err != nil || name == "" {
		t.Fatalf("newest log: %q, %v", name, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := chunkLog(data, 0, true); !ok || n != uint32(num) {
		t.Fatalf("the first chunk of %s: log %d, %v; want log %d", name, n, ok, num)
	}
}
