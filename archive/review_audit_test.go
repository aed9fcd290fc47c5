package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/verify"
)

// TestArchiveWithoutRootsIsMalformed: an archive names a root per chain
// and holds at least one (spec/verify.md#archive: a CARv1 needs a root),
// so a header of no roots is no ledger archive; go-car reads it, and
// verify --car then passed it as a clean audit of nothing, as a file cut
// after its header would be were its roots emptied.
func TestArchiveWithoutRootsIsMalformed(t *testing.T) {
	t.Parallel()
	hb, err := codec.Marshal(struct {
		Roots   []codec.Link `cbor:"roots"`
		Version uint64       `cbor:"version"`
	}{Roots: []codec.Link{}, Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	car := append(binary.AppendUvarint(nil, uint64(len(hb))), hb...)
	if _, err := archive.NewReader(bytes.NewReader(car)); !errors.Is(err, archive.ErrMalformed) {
		t.Fatalf("reader: %v, want ErrMalformed", err)
	}
	if rep, err := verify.VerifyCAR(bytes.NewReader(car), verify.Options{Challenges: verify.NewMemSet()}); err == nil {
		t.Fatalf("verify --car read it: %+v", rep)
	}
	if _, err := archive.Import(open(t, t.TempDir()), bytes.NewReader(car), archive.ImportOptions{}); !errors.Is(err, archive.ErrMalformed) {
		t.Fatalf("import: %v, want ErrMalformed", err)
	}
}
