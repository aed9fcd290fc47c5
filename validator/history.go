package validator

import (
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Entry is one duel result of a validator's ledger: where it is, what it
// says, and the frontier (champion and ratio to beat) after it.
type Entry struct {
	Block  record.BlockRef `json:"block"`
	Record cid.Cid         `json:"record"`
	// Index is the record's position in the block's decisions.
	Index      int         `json:"index"`
	Start      duel.Anchor `json:"start"`
	Champion   duel.Side   `json:"champion"`
	Contender  duel.Side   `json:"contender"`
	RatioPPM   uint32      `json:"ratio_ppm"`
	Winner     string      `json:"winner"`
	EnvsWon    uint32      `json:"envs_won"`
	Envs       int         `json:"envs"`
	GeoMeanPPM uint32      `json:"geomean_ppm"`
	Challenges uint32      `json:"challenges"`
	// NewReign is set when the result's champion is not the champion the
	// results before it left (none, for the first): a reign starts at the
	// floor at the result's start block (spec/validator.md, "Champion").
	// It is set too on the first result after an adoption record, whose
	// reign started at the adopted frontier; Adopted is then that record.
	NewReign bool          `json:"new_reign"`
	Adopted  *Adoption     `json:"adopted,omitempty"`
	After    duel.Frontier `json:"after"`
}

// Adoption is an adoption record of a validator's ledger: the frontier it
// took from the consensus (spec/validator.md, "Following consensus").
type Adoption struct {
	Block  record.BlockRef `json:"block"`
	Record cid.Cid         `json:"record"`
	Index  int             `json:"index"`
	Adopt  duel.Adopt      `json:"adopt"`
}

// ID returns the duel ID of the entry's duel.
func (e Entry) ID() record.DuelID { return duelID(e.Champion, e.Contender, e.Start) }

// History is what a validator's ledger says about its duels: every duel
// result in ledger order (block height, then position in the block) and
// the frontier they leave. It is a pure function of the ledger and the
// frontier parameters.
type History struct {
	Validator keys.PublicKey      `json:"validator"`
	Params    duel.FrontierParams `json:"params"`
	Entries   []Entry             `json:"duels"`
	// Adoptions are the adoption records, in ledger order.
	Adoptions []Adoption `json:"adoptions"`
	// Frontier is the champion and ratio after the last result or
	// adoption; nil before the first.
	Frontier *duel.Frontier `json:"frontier"`
	// Head is the validator's head block when the history was loaded, if
	// it had one: its anchor is the newest chain block the ledger then
	// knew of. A running Validator's History keeps it as it was at New
	// and adds the results recorded since.
	Head *ledger.Head `json:"head,omitempty"`

	dueled map[string]bool
	reigns duel.Reigns
	// adopted is the last adoption when no result follows it yet.
	adopted *Adoption
}

// ErrHistory is wrapped when a validator's duel results do not fold: a
// result against another champion than the one in force without starting a
// reign, or with another ratio than the one in force.
var ErrHistory = errors.New("duel history")

// LoadHistory reads v's chain from s and folds its duel results. A decision
// record of type "duel" that does not decode fails the load (the store's
// decision check should have refused it); records of other types are
// skipped.
func LoadHistory(s *ledger.Store, v keys.PublicKey, p duel.FrontierParams) (*History, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	h := &History{Validator: v, Params: p, dueled: map[string]bool{}, reigns: duel.Reigns{Params: p}}
	head, err := s.Head(v)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return h, nil
	case err != nil:
		return nil, err
	}
	h.Head = &head
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			return nil, fmt.Errorf("validator %s: %w", v.Short(), err)
		}
		if b.Height > head.Block.Height {
			break
		}
		for i, c := range b.DecisionCIDs() {
			d, err := readDecision(s, c)
			if err != nil {
				return nil, fmt.Errorf("validator %s height %d decision %d: %w", v.Short(), b.Height, i, err)
			}
			switch {
			case d.result != nil:
				err = h.add(b.Ref(), c, i, *d.result)
			case d.adopt != nil:
				err = h.addAdopt(b.Ref(), c, i, *d.adopt)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

// decision is a decision record the history folds: a duel result or an
// adoption; neither for records of other types.
type decision struct {
	result *duel.Result
	adopt  *duel.Adopt
}

// readDecision reads the decision record stored under c. An adoption
// record of a later version than this release's is an error, not skipped:
// the frontier it sets cannot be read, and the results after it would
// fail the fold with a misleading ratio.
func readDecision(s *ledger.Store, c cid.Cid) (decision, error) {
	raw, err := s.Object(c)
	if err != nil {
		return decision{}, err
	}
	if err := codec.CheckCID(raw, c); err != nil {
		return decision{}, fmt.Errorf("%w: %v", ledger.ErrCorrupt, err)
	}
	typ, _, err := record.DecisionType(raw)
	switch {
	case err != nil:
		return decision{}, err
	case typ == duel.ResultType:
		r, err := duel.Decode(raw)
		return decision{result: &r}, err
	case typ == duel.AdoptType:
		a, err := duel.DecodeAdopt(raw)
		if err != nil {
			return decision{}, fmt.Errorf("adoption record %s: %w", c, err)
		}
		return decision{adopt: &a}, nil
	}
	return decision{}, nil
}

// add folds one result (spec/duel.md, "Auditing it", with the reign rule
// of spec/validator.md).
func (h *History) add(block record.BlockRef, c cid.Cid, index int, r duel.Result) error {
	e := Entry{
		Block: block, Record: c, Index: index,
		Start: r.Start, Champion: r.Champion, Contender: r.Contender,
		RatioPPM: r.RatioPPM, Winner: r.Winner, EnvsWon: r.EnvsWon, Envs: len(r.Envs), GeoMeanPPM: r.GeoMeanPPM,
	}
	for _, env := range r.Envs {
		e.Challenges += uint32(len(env.Challenges))
	}
	how, err := h.reigns.Result(r)
	if err != nil {
		return fmt.Errorf("%w: validator %s height %d decision %d: %w", ErrHistory, h.Validator.Short(), block.Height, index, err)
	}
	e.NewReign = how != duel.SameReign
	if how == duel.AdoptedReign {
		e.Adopted = h.adopted
	}
	h.adopted = nil
	after := *h.reigns.Frontier
	e.After = after
	h.Entries = append(h.Entries, e)
	h.Frontier = &after
	h.dueled[sideKey(r.Champion)] = true
	h.dueled[sideKey(r.Contender)] = true
	return nil
}

// addAdopt folds an adoption record: the frontier becomes the one it
// adopted, and the next result of its champion continues that reign
// (spec/validator.md, "Recovery from the ledger").
func (h *History) addAdopt(block record.BlockRef, c cid.Cid, index int, a duel.Adopt) error {
	if err := h.reigns.Adopt(a); err != nil {
		return fmt.Errorf("%w: validator %s height %d decision %d: %w", ErrHistory, h.Validator.Short(), block.Height, index, err)
	}
	h.Adoptions = append(h.Adoptions, Adoption{Block: block, Record: c, Index: index, Adopt: a})
	h.adopted = &h.Adoptions[len(h.Adoptions)-1]
	f := *h.reigns.Frontier
	h.Frontier = &f
	return nil
}

// Ratio returns the ratio to beat at chain block height under the current
// frontier; the floor before any duel.
func (h *History) Ratio(height uint64) (uint32, error) {
	if h.Frontier == nil {
		return h.Params.Floor(), nil
	}
	return h.Params.Ratio(*h.Frontier, height)
}

// Dueled reports whether the model s (hotkey and model hash) took part in
// one of the validator's duels, on either side.
func (h *History) Dueled(s duel.Side) bool { return h.dueled[sideKey(s)] }

// Last returns the last entry, ok false if there is none.
func (h *History) Last() (Entry, bool) {
	if len(h.Entries) == 0 {
		return Entry{}, false
	}
	return h.Entries[len(h.Entries)-1], true
}

func sideKey(s duel.Side) string { return string(s.Hotkey[:]) + string(s.ModelHash) }

// duelID is the ledger's duel ID of a duel between two sides from start.
func duelID(champion, contender duel.Side, start duel.Anchor) record.DuelID {
	return record.Duel{Champion: champion.Hotkey, Contender: contender.Hotkey, Start: record.Anchor{Number: start.Number, Hash: record.Hash(start.Hash)}}.ID()
}
