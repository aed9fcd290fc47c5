package archive_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
)

// TestRecycle: a section read after Recycle lands in a recycled buffer
// when one is large enough, and every section still holds exactly its own
// bytes, whether its buffer was recycled, too small or new.
func TestRecycle(t *testing.T) {
	t.Parallel()
	var prev []byte
	reused, sections := 0, 0
	eachSection(t, func(r *archive.Reader, s archive.Section) {
		sections++
		if err := codec.CheckCID(s.Data, s.CID); err != nil {
			t.Fatalf("%s: %v", s.Where(), err)
		}
		if prev != nil && cap(prev) >= len(s.Data) {
			if &prev[:1][0] != &s.Data[:1][0] {
				t.Fatalf("%s: %d bytes in a new buffer, a recycled one of %d was free", s.Where(), len(s.Data), cap(prev))
			}
			reused++
		}
		r.Recycle(s.Data)
		prev = s.Data
	})
	if sections < 10 || reused == 0 {
		t.Fatalf("%d sections, %d read into a recycled buffer", sections, reused)
	}
}

// Without Recycle every section has its own memory: a caller that keeps
// sections keeps them intact.
func TestSectionsKeptWithoutRecycle(t *testing.T) {
	t.Parallel()
	var kept []archive.Section
	eachSection(t, func(_ *archive.Reader, s archive.Section) { kept = append(kept, s) })
	for _, s := range kept {
		if err := codec.CheckCID(s.Data, s.CID); err != nil {
			t.Fatalf("%s, kept: %v", s.Where(), err)
		}
	}
}

// eachSection reads the test archive, calling fn with every section.
func eachSection(t *testing.T, fn func(*archive.Reader, archive.Section)) {
	t.Helper()
	_, car := exported(t)
	r, err := archive.NewReader(bytes.NewReader(car))
	if err != nil {
		t.Fatal(err)
	}
	for {
		s, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(r, s)
	}
}
