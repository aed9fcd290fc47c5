package archive

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ErrMalformed is wrapped by every error about an archive's framing: not
// a CARv1, a broken section, an address that is not a ledger CID.
var ErrMalformed = errors.New("malformed archive")

// Limits on what a reader accepts before allocating.
const (
	// MaxSection bounds one section: the largest ledger object (a
	// transcript) with its CID.
	MaxSection = record.MaxTranscriptBytes + 64
	// MaxHeader bounds the CARv1 header (about 40 bytes a root).
	MaxHeader = 4 << 20
)

// Section is one CID and the bytes the archive holds under it. The bytes
// are not checked against the CID: the caller does, to report a mismatch
// where it belongs in the chain.
type Section struct {
	// Index counts sections from 0 (the header is not one).
	Index int
	// Offset is where the section (its length varint) starts in the
	// file, so a reader of a damaged archive can find the bytes.
	Offset int64
	CID    cid.Cid
	Data   []byte
}

// Where names the section for messages: its index and byte offset.
func (s Section) Where() string {
	return fmt.Sprintf("section %d at byte %d", s.Index, s.Offset)
}

// Reader streams the sections of a CARv1 archive. It never panics on any
// input, allocates at most MaxSection per section, and checks only the
// framing and the form of every CID (v1, dag-cbor, sha2-256).
//
// A section's Data belongs to the caller. A caller done with it may hand
// it back with Recycle, and a later section is read into it: an audit then
// reads a whole archive through a few dozen buffers instead of allocating
// (and zeroing) one per object.
type Reader struct {
	in     *countingReader
	Roots  []cid.Cid
	next   int
	unread *Section
	err    error
	free   chan []byte
}

// recycled bounds the buffers a Reader keeps for reuse: a verifier has at
// most its pipeline's depth of sections in flight.
const recycled = 128

// NewReader reads the header of a CARv1 archive from r.
func NewReader(r io.Reader) (*Reader, error) {
	in := &countingReader{r: bufio.NewReaderSize(r, 1<<16)}
	roots, err := readHeader(in)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	// A root per chain, and an archive holds one at least: one without
	// is no ledger's, and would pass an audit as a clean one of nothing.
	if len(roots) == 0 {
		return nil, fmt.Errorf("%w: header: no roots, an archive names one per chain and holds at least one", ErrMalformed)
	}
	for i, c := range roots {
		if err := codec.CheckAddress(c); err != nil {
			return nil, fmt.Errorf("%w: root %d: %v", ErrMalformed, i, err)
		}
	}
	return &Reader{in: in, Roots: roots, free: make(chan []byte, recycled)}, nil
}

// Next returns the next section, io.EOF after the last. After any other
// error the reader is done and returns that error again.
func (r *Reader) Next() (Section, error) {
	if r.unread != nil {
		s := *r.unread
		r.unread = nil
		return s, nil
	}
	if r.err != nil {
		return Section{}, r.err
	}
	s := Section{Index: r.next, Offset: r.in.n}
	var err error
	s.CID, s.Data, err = r.section()
	if err == nil {
		err = codec.CheckAddress(s.CID)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			r.err = io.EOF
		} else {
			r.err = fmt.Errorf("%w: %s: %v", ErrMalformed, s.Where(), err)
		}
		return Section{}, r.err
	}
	r.next++
	return s, nil
}

// section reads the next section's CID and data, the data into a recycled
// buffer if one is large enough. Sections are framed here, not by go-car:
// its section reader takes no bound, and
// the CID parser it calls allocates whatever digest length a section
// claims (32 MiB from an 80-byte file) before any bound could be checked.
// Here the length comes first, and nothing is allocated past MaxSection.
func (r *Reader) section() (cid.Cid, []byte, error) {
	start := r.in.n
	size, err := binary.ReadUvarint(r.in)
	if err != nil {
		if errors.Is(err, io.EOF) && r.in.n > start {
			err = io.ErrUnexpectedEOF
		}
		return cid.Undef, nil, err
	}
	if size == 0 {
		return cid.Undef, nil, errors.New("empty section")
	}
	if size > MaxSection {
		return cid.Undef, nil, fmt.Errorf("section of %d bytes, over the limit of %d", size, MaxSection)
	}
	// The CID is parsed in place, so that the data gets a buffer of its
	// own that Recycle can hand back whole. A ledger CID is 36 bytes; one
	// longer than maxCIDBytes is refused as cut short.
	head, err := r.in.r.Peek(int(min(size, maxCIDBytes)))
	if err != nil && len(head) == 0 {
		return cid.Undef, nil, io.ErrUnexpectedEOF
	}
	n, c, err := cid.CidFromBytes(head)
	if err != nil {
		return cid.Undef, nil, fmt.Errorf("section CID: %w", err)
	}
	if _, err := r.in.Discard(n); err != nil {
		return cid.Undef, nil, err
	}
	data := r.buffer(int(size) - n)
	if _, err := io.ReadFull(r.in, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return cid.Undef, nil, err
	}
	return c, data, nil
}

// maxCIDBytes bounds the CID of a section the reader parses.
const maxCIDBytes = 128

// buffer returns n bytes of a recycled buffer, or new ones.
func (r *Reader) buffer(n int) []byte {
	select {
	case b := <-r.free:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	// Room to spare, so that a buffer fits most later sections too.
	return make([]byte, n, max(n, 4<<10)+n/4)
}

// Recycle hands back the Data of a section the caller is done with, for a
// later section to be read into. The caller must not touch data again; it
// may call Recycle from any goroutine. Race-detector builds overwrite the
// bytes at once, so that a test of a caller that still reads them fails.
func (r *Reader) Recycle(data []byte) {
	if poisonRecycled {
		for i := range data {
			data[i] = 0xa5
		}
	}
	select {
	case r.free <- data:
	default:
	}
}

// Offset is how many bytes of the archive the reader has consumed: after
// io.EOF, the archive's length.
func (r *Reader) Offset() int64 { return r.in.n }

// Unread pushes s back: the next Next returns it. Only one section can be
// pushed back.
func (r *Reader) Unread(s Section) { r.unread = &s }

// readHeader reads a CARv1 header (spec/verify.md#archive): its length,
// then exactly the canonical DAG-CBOR of {roots, version: 1}, decoded by
// the codec's strict rules. go-car decoded any DAG-CBOR there into a
// generic node tree first, at 20 to 50 times the header's size, and
// leniently: a damaged length that took in the start of the first
// section, or left part of the header to it, had to be caught by
// encoding its result again.
func readHeader(in *countingReader) ([]cid.Cid, error) {
	size, err := binary.ReadUvarint(in)
	switch {
	case errors.Is(err, io.EOF) && in.n == 0:
		return nil, errors.New("empty input, not a CARv1")
	case err != nil:
		return nil, fmt.Errorf("length: %v", err)
	case size == 0:
		return nil, errors.New("length 0")
	case size > MaxHeader:
		return nil, fmt.Errorf("%d bytes, over the limit of %d", size, MaxHeader)
	}
	// Read, not allocated ahead: the length is only a claim.
	hb, err := io.ReadAll(io.LimitReader(in, int64(size)))
	if err != nil {
		return nil, err
	}
	if uint64(len(hb)) != size {
		return nil, fmt.Errorf("%d bytes of the %d its length announces: %v", len(hb), size, io.ErrUnexpectedEOF)
	}
	var h header
	if err := codec.Unmarshal(hb, &h); err != nil {
		return nil, fmt.Errorf("%d bytes that are not the canonical encoding of a roots list and a version: %v", size, err)
	}
	if h.Version != 1 {
		return nil, fmt.Errorf("CAR version %d, ledger archives are CARv1", h.Version)
	}
	roots := make([]cid.Cid, len(h.Roots))
	for i, l := range h.Roots {
		roots[i] = l.Cid
	}
	return roots, nil
}

// countingReader counts the bytes the header and the sections consume,
// which are read exactly (varints byte by byte, the rest to a length), so
// the count is the offset of the next section.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// Discard skips n bytes the caller peeked at.
func (c *countingReader) Discard(n int) (int, error) {
	d, err := c.r.Discard(n)
	c.n += int64(d)
	return d, err
}
