package archive

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
)

// ErrEmpty is returned by Export for a store with no chain: a CARv1 needs
// at least one root.
var ErrEmpty = errors.New("the store has no chain to export")

// Stats counts what Export wrote or Import loaded; its JSON form is the
// output of ledger export --json and ledger import --json.
type Stats struct {
	Chains      int `json:"chains"`
	Blocks      int `json:"blocks"`
	Transcripts int `json:"transcripts"`
	Decisions   int `json:"decisions"`
	ForkProofs  int `json:"fork_proofs"`
	// Bytes is, for Export, the archive's length: what a file of it
	// holds, header, section lengths and CIDs included. For Import it is
	// the records' bytes loaded (the sections' data only), as ledger
	// verify counts its "bytes": less than the archive's length by its
	// framing.
	Bytes int64 `json:"bytes"`
}

// header is the CARv1 header, a DAG-CBOR map {roots, version}.
type header struct {
	Roots   []codec.Link `cbor:"roots"`
	Version uint64       `cbor:"version"`
}

// Header is the header of an archive with roots: its length, then the
// canonical DAG-CBOR of {roots, version: 1}, the only form NewReader
// reads.
func Header(roots []cid.Cid) ([]byte, error) {
	hdr := header{Version: 1, Roots: make([]codec.Link, len(roots))}
	for i, r := range roots {
		hdr.Roots[i] = codec.LinkTo(r)
	}
	hb, err := codec.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	return append(binary.AppendUvarint(nil, uint64(len(hb))), hb...), nil
}

// Export writes every chain of s (as of when it starts) and every fork
// proof to w as a CARv1. Every section's bytes are checked against its CID
// as it is written: stored damage fails the export (ledger.ErrCorrupt,
// naming the object and the block that links it) rather than going into
// the archive. The sections are written by hand rather than
// through go-car's writer, whose index of every CID written grows with the
// ledger; go-car reads them back all the same (TestGoCarReadsTheExport).
func Export(s *ledger.Store, w io.Writer) (Stats, error) {
	var heads []ledger.Head
	for h, err := range s.Heads() {
		if err != nil {
			return Stats{}, fmt.Errorf("export: read heads: %w", err)
		}
		heads = append(heads, h)
	}
	if len(heads) == 0 {
		return Stats{}, ErrEmpty
	}
	roots := make([]cid.Cid, len(heads))
	for i, h := range heads {
		roots[i] = h.Block.CID
	}
	hb, err := Header(roots)
	if err != nil {
		return Stats{}, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &carWriter{w: bw}
	cw.write(hb)
	var st Stats
	for _, h := range heads {
		st.Chains++
		if err := exportChain(s, h, cw, &st); err != nil {
			return st, err
		}
	}
	for p, err := range s.ForkProofs() {
		if err != nil {
			return st, fmt.Errorf("export: read fork proofs: %w", err)
		}
		cw.section(p.CID, p.Raw)
		st.ForkProofs++
	}
	if cw.err == nil {
		cw.err = bw.Flush()
	}
	if cw.err != nil {
		return st, fmt.Errorf("export: write: %w", cw.err)
	}
	st.Bytes = cw.n
	return st, nil
}

func exportChain(s *ledger.Store, h ledger.Head, cw *carWriter, st *Stats) error {
	v := h.Block.Validator
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			return fmt.Errorf("export: chain of %s: %w", v, err)
		}
		if b.Height > h.Block.Height {
			break // appended after the export started
		}
		cw.section(b.CID, b.Raw)
		st.Blocks++
		for _, l := range b.Transcripts {
			if err := exportObject(s, l.Cid, cw); err != nil {
				return fmt.Errorf("export: %s: %w", b.Ref(), err)
			}
			st.Transcripts++
		}
		for _, l := range b.Decisions {
			if err := exportObject(s, l.Cid, cw); err != nil {
				return fmt.Errorf("export: %s: %w", b.Ref(), err)
			}
			st.Decisions++
		}
		if cw.err != nil {
			return fmt.Errorf("export: write: %w", cw.err)
		}
	}
	return nil
}

// exportObject copies an object, checked against its CID as it is
// written: an export is a copy, but a copy of damage would pass the
// damage on under the archive's name, as if the source had served it, and
// be found only by whoever verifies the archive. Blocks and fork proofs are
// checked by the store as it reads them (ledger.ErrCorrupt); this does the
// same for the transcripts and decisions it copies byte for byte.
func exportObject(s *ledger.Store, c cid.Cid, cw *carWriter) error {
	return s.ReadObject(c, func(raw []byte) error {
		if err := codec.CheckCID(raw, c); err != nil {
			return fmt.Errorf("%w: object %s: %v", ledger.ErrCorrupt, c, err)
		}
		cw.section(c, raw)
		return nil
	})
}

// carWriter writes CARv1 sections: uvarint(len) || CID || data. The
// first error sticks.
type carWriter struct {
	w   io.Writer
	n   int64
	err error
	buf [binary.MaxVarintLen64]byte
}

func (cw *carWriter) ld(parts ...[]byte) {
	if cw.err != nil {
		return
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	k := binary.PutUvarint(cw.buf[:], uint64(size))
	cw.write(cw.buf[:k])
	for _, p := range parts {
		cw.write(p)
	}
}

func (cw *carWriter) write(p []byte) {
	if cw.err != nil {
		return
	}
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	cw.err = err
}

func (cw *carWriter) section(c cid.Cid, data []byte) { cw.ld(c.Bytes(), data) }
