package verify

import (
	"io"

	"github.com/cockroachdb/pebble/v2/record"
)

// Hooks for package verify_test's tests of write-ahead logs.
var (
	NewestLog     = newestLog
	ChunkChecksum = chunkChecksum
)

// ReadLog reads log num's records as Pebble replays them.
func ReadLog(r io.Reader, num uint64) *record.Reader { return newLogReader(record.NewReader, r, num) }
