package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/archive"
)

// TestSectionOffsets: every section carries the byte offset of its
// length varint, and errors about a damaged section name it by index and
// offset, so a damaged archive can be inspected where it is damaged.
func TestSectionOffsets(t *testing.T) {
	t.Parallel()
	_, car := exported(t)
	var offs []int64
	n, k := binary.Uvarint(car)
	for off := k + int(n); off < len(car); {
		offs = append(offs, int64(off))
		n, k := binary.Uvarint(car[off:])
		off += k + int(n)
	}
	r, err := archive.NewReader(bytes.NewReader(car))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range offs {
		s, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if s.Index != i || s.Offset != want || s.Where() != fmt.Sprintf("section %d at byte %d", i, want) {
			t.Fatalf("section %d: index %d offset %d (%s), want offset %d", i, s.Index, s.Offset, s.Where(), want)
		}
	}
	if _, err := r.Next(); err != io.EOF || r.Offset() != int64(len(car)) {
		t.Fatalf("after the last section: %v at byte %d of %d", err, r.Offset(), len(car))
	}

	// Cut inside section 3, in its data or right after its length: the
	// error names it.
	_, k = binary.Uvarint(car[offs[3]:])
	for _, cut := range []int64{offs[3] + 10, offs[3] + int64(k)} {
		r, err = archive.NewReader(bytes.NewReader(car[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		_, err = r.Next()
		if want := fmt.Sprintf("section 3 at byte %d", offs[3]); !errors.Is(err, archive.ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Fatalf("archive cut at byte %d: %v, want it to name %q", cut, err, want)
		}
	}
}
