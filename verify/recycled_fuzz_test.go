package verify

import (
	"encoding/binary"
	"testing"
)

// FuzzRecycledTail: any bytes, any offset and log number; recycledTail
// never panics, and a tail it takes for another log's starts with no
// whole chunk of the log's own number where replay stopped.
func FuzzRecycledTail(f *testing.F) {
	chunk := make([]byte, 64)
	chunk[6] = 5
	binary.LittleEndian.PutUint32(chunk[7:], 3)
	f.Add(chunk, int64(0), uint64(4))
	f.Add(chunk, int64(logBlock-5), uint64(3))
	f.Add([]byte{}, int64(-1), uint64(0))
	f.Add(chunk, int64(1<<62), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, off int64, num uint64) {
		if !recycledTail(data, off, num) {
			return
		}
		at := chunkStart(off)
		if n, ok := chunkLog(data, at, false); ok && n == uint32(num) {
			t.Fatalf("a chunk of log %d at %d taken for another log's", num, at)
		}
	})
}
