package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A sync message travels as one frame: its length as an unsigned LEB128
// varint (minimal, at most 4 bytes: every
// allowed length is below 2^28), then that many bytes.

// WriteFrame writes one frame: the length, then the data itself (not a
// copy of it: a response can be megabytes).
func WriteFrame(w io.Writer, data []byte) error {
	if _, err := w.Write(binary.AppendUvarint(nil, uint64(len(data)))); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// frameChunk is the first allocation of a frame body; it doubles as the
// bytes arrive.
const frameChunk = 64 << 10

// ReadFrame reads one frame of at most max bytes. Its buffer grows with
// the bytes that actually arrive, up to the length the prefix announced:
// a peer that announces max bytes and sends none costs a small buffer, not
// max.
func ReadFrame(r *bufio.Reader, max int) ([]byte, error) {
	n64, err := readUvarint(r)
	if err != nil {
		return nil, err
	}
	if n64 > uint64(max) {
		return nil, badMessage("frame of %d bytes, max %d", n64, max)
	}
	n := int(n64)
	data := make([]byte, 0, min(n, frameChunk))
	for len(data) < n {
		if len(data) == cap(data) {
			grown := make([]byte, len(data), min(n, 2*cap(data)))
			copy(grown, data)
			data = grown
		}
		k, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+k]
		if err != nil && len(data) < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("frame of %d bytes: %w", n, err)
		}
	}
	return data, nil
}

// readUvarint reads a minimal varint of at most 4 bytes.
func readUvarint(r io.ByteReader) (uint64, error) {
	var x uint64
	for i := 0; i < 4; i++ {
		b, err := r.ReadByte()
		if err != nil {
			if i > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, badMessage("frame length varint is not minimal")
			}
			return x, nil
		}
	}
	return 0, badMessage("frame length varint longer than 4 bytes")
}
