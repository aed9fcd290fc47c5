package verify

import (
	"encoding/binary"
	"hash/crc32"
)

// Pebble's log format (record package): 32 KiB blocks of chunks that never
// straddle a block; a recyclable chunk's header is a masked CRC-32C (4
// bytes), the payload length (2), the chunk type (1) and the log number
// (4), and a WAL-sync chunk's adds a sync offset (8). The checksum covers
// the header from the type on, and the payload.
const (
	logBlock            = 32 << 10
	recyclableHeader    = 11
	walSyncHeader       = 19
	firstRecyclableType = 5  // full, first, middle, last
	lastWALSyncType     = 12 // then the same four with a sync offset
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recycledTail reports whether a log numbered num, whose replay stops at
// byte off, goes on there with another log's content rather than a torn
// record of its own. Pebble writes a new log into the file of an obsolete
// one (it recycles logs), so a crash leaves the new log's last record
// followed by the old log's bytes: whatever of them lies at off does not
// check out, and replay stops there having replayed every record the log
// holds. That is no torn tail: a torn record is a chunk of this log, cut
// short or not checking out, at off. A recycled tail shows itself by a
// whole chunk of another log at off or at the next block, where the old
// log began a block with a chunk.
func recycledTail(data []byte, off int64, num uint64) bool {
	at := chunkStart(off)
	if n, ok := chunkLog(data, at, false); ok && n == uint32(num) {
		return false // this log's own chunk, cut short or damaged
	}
	for _, c := range []int{at, (at/logBlock + 1) * logBlock} {
		if n, ok := chunkLog(data, c, true); ok && n != uint32(num) {
			return true
		}
	}
	return false
}

// chunkStart is where the chunk replay stopped at starts: off, or the next
// block when off leaves too little of its block for a header (padding).
func chunkStart(off int64) int {
	at := int(off)
	if logBlock-at%logBlock < recyclableHeader {
		at += logBlock - at%logBlock
	}
	return at
}

// chunkChecksum is the checksum a chunk's header holds for the chunk from
// its type byte to its payload's end: CRC-32C, masked as Pebble masks it.
func chunkChecksum(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + 0xa282ead8
}

// chunkLog returns the log number in the chunk header at off, if the
// bytes there are a recyclable or WAL-sync header within their block;
// with whole, only if the chunk's payload lies within the block and the
// file too and its checksum checks out.
func chunkLog(data []byte, off int, whole bool) (uint32, bool) {
	if off < 0 || off > len(data)-recyclableHeader {
		return 0, false
	}
	h := data[off:]
	typ := h[6]
	if typ < firstRecyclableType || typ > lastWALSyncType {
		return 0, false
	}
	size := recyclableHeader
	if typ > firstRecyclableType+3 {
		size = walSyncHeader
	}
	length := int(binary.LittleEndian.Uint16(h[4:6]))
	end := off + size + length
	if off%logBlock+size > logBlock || off+size > len(data) {
		return 0, false
	}
	logNum := binary.LittleEndian.Uint32(h[7:11])
	if !whole {
		return logNum, true
	}
	if off%logBlock+size+length > logBlock || end > len(data) {
		return 0, false
	}
	if chunkChecksum(data[off+6:end]) != binary.LittleEndian.Uint32(h[0:4]) {
		return 0, false
	}
	return logNum, true
}
