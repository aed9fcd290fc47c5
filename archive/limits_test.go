package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
)

// A section of exactly MaxSection bytes (CID and data) is read; one byte
// more is malformed, refused before it is allocated.
func TestSectionSizeBound(t *testing.T) {
	t.Parallel()
	c := codec.Sum([]byte("x")).Bytes()
	for _, size := range []int{archive.MaxSection, archive.MaxSection + 1} {
		car := binary.AppendUvarint(carHeader(t), uint64(size))
		car = append(car, c...)
		car = append(car, make([]byte, size-len(c))...)
		r, err := archive.NewReader(bytes.NewReader(car))
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Next()
		if size == archive.MaxSection {
			if err != nil || len(s.Data) != size-len(c) {
				t.Fatalf("section of exactly MaxSection: %d data bytes, %v", len(s.Data), err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the section: %v", err)
			}
			continue
		}
		if !errors.Is(err, archive.ErrMalformed) || !strings.Contains(err.Error(), "section 0") {
			t.Fatalf("section of MaxSection+1: %v", err)
		}
	}
}

// A header that announces exactly MaxHeader bytes passes the size check
// (and then fails to decode, being padding); one byte more is refused for
// its size.
func TestHeaderSizeBound(t *testing.T) {
	t.Parallel()
	for _, size := range []int{archive.MaxHeader, archive.MaxHeader + 1} {
		car := binary.AppendUvarint(nil, uint64(size))
		car = append(car, make([]byte, size)...)
		_, err := archive.NewReader(bytes.NewReader(car))
		if !errors.Is(err, archive.ErrMalformed) {
			t.Fatalf("header of %d bytes: %v", size, err)
		}
		if tooLarge := strings.Contains(err.Error(), "over the limit"); tooLarge != (size > archive.MaxHeader) {
			t.Fatalf("header of %d bytes (max %d): %v", size, archive.MaxHeader, err)
		}
	}
}

// carHeader is the length-prefixed header of an archive with one root.
func carHeader(t *testing.T) []byte {
	t.Helper()
	h, err := codec.Marshal(struct {
		Roots   []codec.Link `cbor:"roots"`
		Version uint64       `cbor:"version"`
	}{[]codec.Link{codec.LinkTo(codec.Sum([]byte("x")))}, 1})
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.AppendUvarint(nil, uint64(len(h))), h...)
}
