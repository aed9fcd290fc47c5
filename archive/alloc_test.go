package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
)

// TestSectionCIDDigestAllocation: spec/verify.md ("Readers accept
// sections of at most 2 MiB + 64 bytes ... and never allocate more before
// checking"). A 60-byte archive whose first section announces a huge
// length and a CID whose multihash claims a 32 MiB digest must be refused
// without allocating the digest: the section bound is checked only after
// go-car has parsed the CID, and go-cid allocates the claimed digest length
// (up to 32 MiB) before reading it.
func TestSectionCIDDigestAllocation(t *testing.T) {
	car := binary.AppendUvarint(carHeader(t), 1<<40) // section length, far over MaxSection
	car = append(car, 0x01, 0x71, 0x12)              // CIDv1, dag-cbor, sha2-256
	car = binary.AppendUvarint(car, 32<<20-1)        // digest length: just under go-cid's own cap
	car = append(car, bytes.Repeat([]byte{0}, 8)...) // a few digest bytes, then the file ends

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := archive.NewReader(bytes.NewReader(car))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, archive.ErrMalformed) {
		t.Fatalf("hostile section: %v, want ErrMalformed", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*archive.MaxSection {
		t.Fatalf("reading a %d-byte archive allocated %d bytes (MaxSection is %d): the section bound is checked after the CID's claimed digest is allocated (%v)",
			len(car), got, archive.MaxSection, err)
	}
}

// TestHeaderAllocation: a header may be up to MaxHeader (4 MiB), a root
// per chain, and what reading it costs must follow its bytes. go-car
// decoded it into a generic node tree first: a header of 100,000 roots
// (4.1 MB) allocated 75 MiB, 19 times its size.
func TestHeaderAllocation(t *testing.T) {
	const n = 100_000
	var roots []codec.Link
	for i := range n {
		roots = append(roots, codec.LinkTo(codec.Sum(binary.BigEndian.AppendUint32(nil, uint32(i)))))
	}
	body, err := codec.Marshal(struct {
		Roots   []codec.Link `cbor:"roots"`
		Version uint64       `cbor:"version"`
	}{roots, 1})
	if err != nil {
		t.Fatal(err)
	}
	car := append(binary.AppendUvarint(nil, uint64(len(body))), body...)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := archive.NewReader(bytes.NewReader(car))
	runtime.ReadMemStats(&after)
	if err != nil || len(r.Roots) != n {
		t.Fatalf("a header of %d roots: %v", n, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*uint64(len(car)) {
		t.Fatalf("reading a %d-byte header allocated %d MiB, %.1f times its size", len(car), got>>20, float64(got)/float64(len(car)))
	}
}
