package explorer

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

// TranscriptView is GET /api/v1/transcripts/{cid}: the whole record as
// record.Transcript encodes to JSON, where it is in its validator's log,
// and its score.
type TranscriptView struct {
	CID        string             `json:"cid"`
	Validator  string             `json:"validator"`
	Leaf       uint64             `json:"leaf"`
	Height     uint64             `json:"height"`
	Block      string             `json:"block"`
	Bytes      int                `json:"bytes"`
	Transcript *record.Transcript `json:"transcript"`
	// Score is the reward scaled to [0, 1]; RewardRange the env
	// version's bounds it is scaled by (null for an unknown env version).
	Score       float64      `json:"score"`
	RewardRange *RewardRange `json:"reward_range"`
	// DuelRecords are the CIDs of the duel results recorded for the
	// transcript's duel (empty outside duels or before the result).
	DuelRecords []string `json:"duel_records"`
}

// RewardRange is an env version's reward bounds.
type RewardRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

func (srv *server) transcript(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	t, err := srv.s.Transcript(c)
	if errors.Is(err, ledger.ErrNotFound) {
		return errNotFound(fmt.Sprintf("transcript %s is not in this store", c))
	}
	if err != nil {
		return err
	}
	b, err := srv.s.BlockAt(t.Ref.Validator, t.Ref.Height)
	if err != nil {
		return err
	}
	out := TranscriptView{
		CID: c.String(), Validator: t.Ref.Validator.String(), Leaf: t.Ref.Leaf, Height: t.Ref.Height, Block: b.CID.String(),
		Bytes: len(t.Raw), Transcript: t.Transcript, Score: scaleReward(t.Env, t.EnvVersion, t.Reward), DuelRecords: []string{},
	}
	if lo, hi, ok := envRange(t.Env, t.EnvVersion); ok {
		out.RewardRange = &RewardRange{Min: lo, Max: hi}
	}
	if !t.Duel.IsZero() {
		err := srv.index.read(func(x *index) error {
			for _, d := range x.duelsByID[t.Duel] {
				out.DuelRecords = append(out.DuelRecords, d.record.String())
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return writeJSON(w, out)
}

// proof serves the transcript's inclusion proof (spec/proofs.md) against
// its validator's latest checkpoint, as a download.
func (srv *server) proof(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	p, err := verify.ProveInclusion(srv.s, c)
	if errors.Is(err, ledger.ErrNotFound) {
		return errNotFound(fmt.Sprintf("transcript %s is not in this store", c))
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="inclusion-proof-%s.json"`, c))
	return writeJSON(w, p)
}
