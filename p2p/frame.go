package p2p

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

// writeFrame writes one frame.
func writeFrame(w io.Writer, data []byte) error {
	buf := make([]byte, 0, binary.MaxVarintLen64+len(data))
	buf = binary.AppendUvarint(buf, uint64(len(data)))
	buf = append(buf, data...)
	_, err := w.Write(buf)
	return err
}

// readFrame reads one frame of at most max bytes. It never allocates more
// than max, whatever the length prefix says.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, err := readUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, badMessage("frame of %d bytes, max %d", n, max)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("frame of %d bytes: %w", n, err)
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
