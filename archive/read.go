package archive

import (
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"
	car "github.com/ipld/go-car/v2"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/ledger"
)

// ErrMalformed is wrapped by every error about an archive's framing: not
// a CARv1, a broken section, an address that is not a ledger CID.
var ErrMalformed = errors.New("malformed archive")

// Limits on what a reader accepts before allocating.
const (
	// MaxSection bounds one section: the largest ledger object (a
	// transcript) with its CID.
	MaxSection = ledger.MaxTranscriptBytes + 64
	// MaxHeader bounds the CARv1 header (about 40 bytes a root).
	MaxHeader = 4 << 20
)

// Section is one CID and the bytes the archive holds under it. The bytes
// are not checked against the CID: the caller does, to report a mismatch
// where it belongs in the chain.
type Section struct {
	// Index counts sections from 0 (the header is not one).
	Index int
	CID   cid.Cid
	Data  []byte
}

// Reader streams the sections of a CARv1 archive. It never panics on any
// input, allocates at most MaxSection per section, and checks only the
// framing and the form of every CID (v1, dag-cbor, sha2-256).
type Reader struct {
	br     *car.BlockReader
	Roots  []cid.Cid
	next   int
	unread *Section
	err    error
}

// NewReader reads the header of a CARv1 archive from r.
func NewReader(r io.Reader) (*Reader, error) {
	br, err := car.NewBlockReader(r,
		car.WithTrustedCAR(true), // hashes are checked by the caller, per object
		car.MaxAllowedSectionSize(MaxSection),
		car.MaxAllowedHeaderSize(MaxHeader),
	)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	if br.Version != 1 {
		return nil, fmt.Errorf("%w: CAR version %d, ledger archives are CARv1", ErrMalformed, br.Version)
	}
	for i, c := range br.Roots {
		if err := checkAddress(c); err != nil {
			return nil, fmt.Errorf("%w: root %d: %v", ErrMalformed, i, err)
		}
	}
	return &Reader{br: br, Roots: br.Roots}, nil
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
	b, err := r.br.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			r.err = io.EOF
		} else {
			r.err = fmt.Errorf("%w: section %d: %v", ErrMalformed, r.next, err)
		}
		return Section{}, r.err
	}
	s := Section{Index: r.next, CID: b.Cid(), Data: b.RawData()}
	if err := checkAddress(s.CID); err != nil {
		r.err = fmt.Errorf("%w: section %d: %v", ErrMalformed, r.next, err)
		return Section{}, r.err
	}
	r.next++
	return s, nil
}

// Unread pushes s back: the next Next returns it. Only one section can be
// pushed back.
func (r *Reader) Unread(s Section) { r.unread = &s }

// checkAddress accepts exactly the CIDs the ledger makes: v1, dag-cbor,
// sha2-256 with a 32-byte digest.
func checkAddress(c cid.Cid) error {
	if !c.Defined() || c.Version() != 1 || c.Type() != cid.DagCBOR {
		return fmt.Errorf("%s is not a CIDv1 dag-cbor address", c)
	}
	if p := c.Prefix(); p.MhType != multihash.SHA2_256 || p.MhLength != 32 {
		return fmt.Errorf("%s is not a sha2-256 address", c)
	}
	return nil
}
