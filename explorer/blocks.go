package explorer

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// MaxBlockTranscripts bounds the transcripts listed with one block page.
const MaxBlockTranscripts = 200

// blocks lists a validator's blocks newest first; the cursor is the next
// height to show.
func (srv *server) blocks(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	v, err := pathHotkey(r)
	if err != nil {
		return err
	}
	limit, c, err := q.page(DefaultLimit, MaxLimit, cursorBlocks, 8)
	if err != nil {
		return err
	}
	h, err := srv.s.Head(v)
	if errors.Is(err, ledger.ErrNotFound) {
		return errNotFound("validator " + v.String() + " has no chain in this store")
	}
	if err != nil {
		return err
	}
	next := h.Block.Height
	if c != nil {
		if next = be64(c); next > h.Block.Height {
			return errBadRequest("cursor: past the chain's head")
		}
	}
	page := Page[BlockSummary]{Items: []BlockSummary{}}
	for {
		b, err := srv.s.BlockAt(v, next)
		if err != nil {
			return err
		}
		page.Items = append(page.Items, blockSummary(b))
		if next == 0 {
			break
		}
		next--
		if len(page.Items) == limit {
			page.Next = encodeCursor(cursorBlocks, appendBE64(nil, next))
			break
		}
	}
	return writeJSON(w, page)
}

// BlockView is GET /api/v1/blocks/{cid} and
// /api/v1/validators/{hotkey}/blocks/{height}.
type BlockView struct {
	BlockSummary
	Format uint64 `json:"v"`
	// Net is the network the block names; absent in format 1, which
	// names none.
	Net       *record.Network `json:"net,omitempty"`
	Prev      string          `json:"prev"`
	Signature string          `json:"sig"`
	// SignatureValid is the check of the signature against the validator.
	SignatureValid bool `json:"signature_valid"`
	// FirstLeaf is the log index of the block's first transcript.
	FirstLeaf uint64         `json:"first_leaf"`
	Decisions []DecisionView `json:"decision_records"`
	// TranscriptList is a page of the block's transcripts (cursor and
	// limit, at most MaxBlockTranscripts).
	TranscriptList Page[TranscriptSummary] `json:"transcript_list"`
}

// DecisionView is one decision record a block links.
type DecisionView struct {
	CID string `json:"cid"`
	// Type is the record's type: "duel", "reexec", or another.
	Type string `json:"type"`
	// Duel is the summary of a duel result; Outcome an outcome record.
	Duel    *DuelRow        `json:"duel,omitempty"`
	Outcome *vtrust.Outcome `json:"outcome,omitempty"`
	// OutcomeOn is the type of the record an outcome judges, "duel" or
	// "transcript", so that a page links to the right view of it.
	OutcomeOn string `json:"outcome_on,omitempty"`
	// Error says why a record could not be read.
	Error string `json:"error,omitempty"`
}

func (srv *server) block(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	b, err := srv.s.Block(c)
	if errors.Is(err, ledger.ErrNotFound) {
		return errNotFound(fmt.Sprintf("block %s is not in this store", c))
	}
	if errors.Is(err, record.ErrMalformed) {
		// Another kind of record (a transcript, a decision) has this CID.
		return errNotFound(fmt.Sprintf("%s is stored but is not a block", c))
	}
	if err != nil {
		return err
	}
	return srv.writeBlock(w, q, b)
}

func (srv *server) blockAt(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	v, err := pathHotkey(r)
	if err != nil {
		return err
	}
	height, err := pathUint(r, "height")
	if err != nil {
		return err
	}
	b, err := srv.s.BlockAt(v, height)
	if errors.Is(err, ledger.ErrNotFound) {
		return errNotFound(fmt.Sprintf("validator %s has no block at height %d in this store", v, height))
	}
	if err != nil {
		return err
	}
	return srv.writeBlock(w, q, b)
}

func (srv *server) writeBlock(w http.ResponseWriter, q query, b ledger.StoredBlock) error {
	limit, c, err := q.page(100, MaxBlockTranscripts, cursorBlockTranscripts, 8)
	if err != nil {
		return err
	}
	var offset uint64
	if c != nil {
		if offset = be64(c); offset >= uint64(len(b.Transcripts)) {
			return errBadRequest("cursor: past the block's transcripts")
		}
	}
	out := BlockView{
		BlockSummary: blockSummary(b), Format: b.Format, Prev: cidString(b.Prev.Cid),
		Signature: hexOf(b.Signature[:]), SignatureValid: b.VerifySignature() == nil,
		FirstLeaf: b.Checkpoint.Size - uint64(len(b.Transcripts)),
		Decisions: []DecisionView{}, TranscriptList: Page[TranscriptSummary]{Items: []TranscriptSummary{}},
	}
	if b.Format == record.BlockFormat {
		out.Net = &b.Net
	}
	for i := offset; i < uint64(len(b.Transcripts)); i++ {
		if len(out.TranscriptList.Items) == limit {
			out.TranscriptList.Next = encodeCursor(cursorBlockTranscripts, appendBE64(nil, i))
			break
		}
		ref := ledger.TranscriptRef{Validator: b.Validator, Leaf: out.FirstLeaf + i, Height: b.Height, CID: b.Transcripts[i].Cid}
		t, err := srv.readTranscript(ref)
		if err != nil {
			return err
		}
		out.TranscriptList.Items = append(out.TranscriptList.Items, transcriptSummary(ref, t))
	}
	for i, l := range b.Decisions {
		out.Decisions = append(out.Decisions, srv.decisionView(b, i, l))
	}
	return writeJSON(w, out)
}

func (srv *server) decisionView(b ledger.StoredBlock, i int, l codec.Link) DecisionView {
	dv := DecisionView{CID: l.Cid.String()}
	raw, err := srv.s.Object(l.Cid)
	if err == nil {
		err = codec.CheckCID(raw, l.Cid)
	}
	if err != nil {
		dv.Error = err.Error()
		return dv
	}
	dv.Type = recordType(raw)
	switch dv.Type {
	case duel.ResultType:
		res, err := duel.Decode(raw)
		if err != nil {
			dv.Error = err.Error()
			return dv
		}
		d := &duelEntry{record: l.Cid, validator: b.Validator, block: b.CID, height: b.Height, index: i, timeMS: b.TimeMS, r: res}
		for _, e := range res.Envs {
			d.n += len(e.Challenges)
		}
		row := duelRow(d)
		dv.Duel = &row
	case vtrust.OutcomeType:
		o, err := vtrust.DecodeOutcome(raw)
		if err != nil {
			dv.Error = err.Error()
			return dv
		}
		dv.Outcome = &o
		dv.OutcomeOn = "transcript"
		if raw, err := srv.s.Object(o.Record.Cid); err == nil && recordType(raw) == duel.ResultType {
			dv.OutcomeOn = duel.ResultType
		}
	}
	return dv
}

// readTranscript reads the transcript ref names, checking its bytes
// against the CID.
func (srv *server) readTranscript(ref ledger.TranscriptRef) (*record.Transcript, error) {
	raw, err := srv.s.Object(ref.CID)
	if err != nil {
		return nil, err
	}
	if err := codec.CheckCID(raw, ref.CID); err != nil {
		return nil, fmt.Errorf("%w: validator %s leaf %d: %v", ledger.ErrCorrupt, ref.Validator, ref.Leaf, err)
	}
	t, err := record.DecodeTranscript(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: validator %s leaf %d: %v", ledger.ErrCorrupt, ref.Validator, ref.Leaf, err)
	}
	return t, nil
}
