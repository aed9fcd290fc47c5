package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/archive"
)

// TestHeaderMustBeCanonical: go-car decodes a header leniently; a length
// that takes in bytes after the header map (a damaged varint taking in
// the start of the first section, say) is refused as a bad header, not
// reported later as a broken section.
func TestHeaderMustBeCanonical(t *testing.T) {
	t.Parallel()
	_, car := exported(t)
	n, k := binary.Uvarint(car)
	hb := car[k : k+int(n)]
	rest := car[k+int(n):]
	for _, extra := range [][]byte{{0x00}, rest[:40]} {
		bad := binary.AppendUvarint(nil, n+uint64(len(extra)))
		bad = append(append(append(bad, hb...), extra...), rest...)
		_, err := archive.NewReader(bytes.NewReader(bad))
		if !errors.Is(err, archive.ErrMalformed) || !strings.Contains(err.Error(), "header") {
			t.Fatalf("header with %d bytes after the map: %v", len(extra), err)
		}
	}
	if _, err := archive.NewReader(bytes.NewReader(car)); err != nil {
		t.Fatalf("the export's own header: %v", err)
	}
}
