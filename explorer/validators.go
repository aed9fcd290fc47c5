package explorer

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// StatusView is GET /api/v1/status.
type StatusView struct {
	Validators int         `json:"validators"`
	Miners     int         `json:"miners"`
	Models     int         `json:"models"`
	Duels      int         `json:"duels"`
	ForkProofs int         `json:"fork_proofs"`
	Indexed    indexCounts `json:"indexed"`
	// Problems are records the index could not read (at most 100).
	Problems []string `json:"problems"`
	Tempo    uint64   `json:"tempo"`
	Chain    bool     `json:"chain"`
	// Frontier are the parameters the ratio to beat moves by.
	Frontier duel.FrontierParams `json:"frontier"`
}

func (srv *server) status(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	var out StatusView
	err := srv.index.read(func(x *index) error {
		out = StatusView{Validators: len(x.chains), Miners: len(x.miners), Models: len(x.models), Duels: len(x.duels),
			Indexed: x.counts, Problems: append([]string{}, x.problems...)}
		return nil
	})
	if err != nil {
		return err
	}
	for _, err := range srv.s.ForkProofs() {
		// An unreadable (damaged) proof is listed too, and so is one of
		// format 1, which proves no equivocation.
		var unreadable *ledger.UnreadableForkProofError
		if err != nil && !errors.As(err, &unreadable) {
			return err
		}
		out.ForkProofs++
	}
	out.Tempo, out.Chain, out.Frontier = srv.opts.Tempo, srv.opts.Chain != nil, srv.opts.Frontier
	return writeJSON(w, out)
}

// healthz answers 200 while the store can be read, 503 otherwise.
func (srv *server) healthz(w http.ResponseWriter, r *http.Request) error {
	n := 0
	for _, err := range srv.s.Heads() {
		if err != nil {
			return errUnavailable("store: " + err.Error())
		}
		n++
	}
	return writeJSON(w, map[string]any{"ok": true, "validators": n})
}

// ValidatorRow is a row of GET /api/v1/validators.
type ValidatorRow struct {
	HeadView
	// Commitment is the validator's on-chain commitment, with --chain.
	Commitment *CommitmentView `json:"commitment,omitempty"`
}

func (srv *server) validators(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	limit, after, err := q.page(DefaultLimit, MaxLimit, cursorValidators, 32)
	if err != nil {
		return err
	}
	page := Page[ValidatorRow]{Items: []ValidatorRow{}}
	var last keys.PublicKey
	for h, err := range srv.s.Heads() {
		if err != nil {
			return err
		}
		v := h.Block.Validator
		if after != nil && bytes.Compare(v[:], after) <= 0 {
			continue
		}
		if len(page.Items) == limit {
			page.Next = encodeCursor(cursorValidators, last[:])
			break
		}
		page.Items = append(page.Items, ValidatorRow{HeadView: headView(h)})
		last = v
	}
	if srv.chain.enabled() {
		for i := range page.Items {
			page.Items[i].Commitment = srv.chain.validatorCommitment(r.Context(), srv.s, page.Items[i].Validator)
		}
	}
	return writeJSON(w, page)
}

// ValidatorView is GET /api/v1/validators/{hotkey}.
type ValidatorView struct {
	Head HeadView `json:"head"`
	// Frontier is the champion and ratio to beat the validator's duel
	// results leave (null before its first), and RatioPPM the ratio in
	// force at its head's anchor.
	Frontier *duel.Frontier `json:"frontier"`
	RatioPPM uint32         `json:"ratio_ppm"`
	// DuelCount is the number of its duel results; Duels the latest
	// (at most 20), newest first.
	DuelCount int       `json:"duel_count"`
	Duels     []DuelRow `json:"duels"`
	// History is an error folding its duel results (a result against
	// another champion than the one in force without a new reign, or
	// with another ratio than the one in force), "" if they fold.
	HistoryError string          `json:"history_error"`
	Commitment   *CommitmentView `json:"commitment,omitempty"`
	Neuron       *NeuronView     `json:"neuron,omitempty"`
}

func (srv *server) validator(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	v, err := pathHotkey(r)
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
	out := ValidatorView{Head: headView(h), Duels: []DuelRow{}}
	err = srv.index.read(func(x *index) error {
		var mine []*duelEntry
		for _, d := range x.duels {
			if d.validator == v {
				mine = append(mine, d)
			}
		}
		out.DuelCount = len(mine)
		f, err := foldFrontier(srv.opts.Frontier, mine, x.adoptions[v])
		if err != nil {
			out.HistoryError = err.Error()
		}
		out.Frontier = f
		out.RatioPPM = srv.opts.Frontier.Floor()
		if f != nil && h.Anchor.Number >= f.SetAt {
			out.RatioPPM, _ = srv.opts.Frontier.Ratio(*f, h.Anchor.Number)
		}
		for i := len(mine) - 1; i >= 0 && len(out.Duels) < 20; i-- {
			out.Duels = append(out.Duels, duelRow(mine[i]))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if srv.chain.enabled() {
		out.Commitment = srv.chain.validatorCommitment(r.Context(), srv.s, v)
		out.Neuron = srv.chain.neuron(r.Context(), v)
	}
	return writeJSON(w, out)
}

// adoptEntry is an adoption record of a validator's chain.
type adoptEntry struct {
	height uint64
	index  int
	a      duel.Adopt
}

// foldFrontier folds a validator's duel results and adoption records, each
// in ledger order, into the frontier they leave (validator.History's rule,
// duel.Reigns).
func foldFrontier(p duel.FrontierParams, entries []*duelEntry, adoptions []adoptEntry) (*duel.Frontier, error) {
	g := duel.Reigns{Params: p}
	for i, j := 0, 0; i < len(entries) || j < len(adoptions); {
		if j < len(adoptions) && (i == len(entries) || adoptions[j].height < entries[i].height ||
			adoptions[j].height == entries[i].height && adoptions[j].index < entries[i].index) {
			if err := g.Adopt(adoptions[j].a); err != nil {
				return g.Frontier, err
			}
			j++
			continue
		}
		if _, err := g.Result(entries[i].r); err != nil {
			return g.Frontier, err
		}
		i++
	}
	return g.Frontier, nil
}

func (srv *server) validatorTranscripts(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	v, err := pathHotkey(r)
	if err != nil {
		return err
	}
	limit, c, err := q.page(DefaultLimit, MaxLimit, cursorLeaves, 8)
	if err != nil {
		return err
	}
	var from uint64
	if c != nil {
		from = be64(c)
	}
	if _, err := srv.s.Head(v); errors.Is(err, ledger.ErrNotFound) {
		return errNotFound("validator " + v.String() + " has no chain in this store")
	}
	page := Page[TranscriptSummary]{Items: []TranscriptSummary{}}
	for ref, err := range srv.s.Leaves(v, from) {
		if err != nil {
			return err
		}
		if len(page.Items) == limit {
			page.Next = encodeCursor(cursorLeaves, appendBE64(nil, ref.Leaf))
			break
		}
		t, err := srv.readTranscript(ref)
		if err != nil {
			return err
		}
		page.Items = append(page.Items, transcriptSummary(ref, t))
	}
	return writeJSON(w, page)
}

func be64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}
