package archive_test

import (
	"bytes"
	"io"
	"testing"

	car "github.com/ipld/go-car/v2"

	"github.com/affine-ledger/ledger/archive"
)

// TestGoCarReadsTheExport: an export is a CARv1 as go-car, an
// independent implementation, reads one: the same roots, and every
// section under the same CID with the same bytes, in the same order, as
// this package's reader gives.
func TestGoCarReadsTheExport(t *testing.T) {
	t.Parallel()
	_, file := exported(t)
	ours, err := archive.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := car.NewBlockReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if theirs.Version != 1 || len(theirs.Roots) != len(ours.Roots) {
		t.Fatalf("go-car: version %d, %d roots; ours %d roots", theirs.Version, len(theirs.Roots), len(ours.Roots))
	}
	for i := range ours.Roots {
		if !theirs.Roots[i].Equals(ours.Roots[i]) {
			t.Fatalf("root %d: go-car %s, ours %s", i, theirs.Roots[i], ours.Roots[i])
		}
	}
	n := 0
	for ; ; n++ {
		b, err := theirs.Next()
		s, ourErr := ours.Next()
		if err == io.EOF || ourErr == io.EOF {
			if err != ourErr {
				t.Fatalf("section %d: go-car %v, ours %v", n, err, ourErr)
			}
			break
		}
		if err != nil || ourErr != nil {
			t.Fatalf("section %d: go-car %v, ours %v", n, err, ourErr)
		}
		if !b.Cid().Equals(s.CID) || !bytes.Equal(b.RawData(), s.Data) {
			t.Fatalf("section %d: go-car %s (%d bytes), ours %s (%d bytes)", n, b.Cid(), len(b.RawData()), s.CID, len(s.Data))
		}
	}
	if n < 10 {
		t.Fatalf("only %d sections", n)
	}
}
