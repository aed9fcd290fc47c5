package explorer

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// DuelRow is one duel result as a validator recorded it.
type DuelRow struct {
	Record    string         `json:"record"`
	Validator keys.PublicKey `json:"validator"`
	Height    uint64         `json:"height"`
	Block     string         `json:"block"`
	// Index is the record's position in the block's decisions.
	Index  int    `json:"index"`
	TimeMS int64  `json:"time_ms"`
	DuelID string `json:"duel_id"`
	// Start, Champion, Contender, RatioPPM, Winner, EnvsWon and
	// GeoMeanPPM are the record's (spec/duel.md).
	Start      duel.Anchor  `json:"start"`
	Champion   duel.Side    `json:"champion"`
	Contender  duel.Side    `json:"contender"`
	RatioPPM   uint32       `json:"ratio_ppm"`
	Winner     string       `json:"winner"`
	EnvsWon    uint32       `json:"envs_won"`
	GeoMeanPPM uint32       `json:"geomean_ppm"`
	Challenges int          `json:"challenges"`
	Envs       []EnvSummary `json:"envs"`
}

// EnvSummary is one env of a duel result without its challenges.
type EnvSummary struct {
	Env      string `json:"env"`
	Wins     uint32 `json:"wins"`
	Losses   uint32 `json:"losses"`
	Draws    uint32 `json:"draws"`
	Looks    uint32 `json:"looks"`
	LowerPPM uint32 `json:"lower_ppm"`
	UpperPPM uint32 `json:"upper_ppm"`
	RatePPM  uint32 `json:"rate_ppm"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func duelRow(d *duelEntry) DuelRow {
	id := d.id
	if id.IsZero() {
		id = record.Duel{Champion: d.r.Champion.Hotkey, Contender: d.r.Contender.Hotkey,
			Start: record.Anchor{Number: d.r.Start.Number, Hash: record.Hash(d.r.Start.Hash)}}.ID()
	}
	row := DuelRow{
		Record: d.record.String(), Validator: d.validator, Height: d.height, Block: d.block.String(), Index: d.index,
		TimeMS: d.timeMS, DuelID: id.String(), Start: d.r.Start, Champion: d.r.Champion, Contender: d.r.Contender,
		RatioPPM: d.r.RatioPPM, Winner: d.r.Winner, EnvsWon: d.r.EnvsWon, GeoMeanPPM: d.r.GeoMeanPPM, Challenges: d.n,
		Envs: make([]EnvSummary, len(d.r.Envs)),
	}
	for i, e := range d.r.Envs {
		row.Envs[i] = EnvSummary{Env: e.Env, Wins: e.Wins, Losses: e.Losses, Draws: e.Draws, Looks: e.Looks,
			LowerPPM: e.LowerPPM, UpperPPM: e.UpperPPM, RatePPM: e.RatePPM, Decision: e.Decision, Reason: e.Reason}
	}
	return row
}

// duels lists duel results newest first (start block descending), of one
// validator or with one miner on either side if asked.
func (srv *server) duels(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor", "validator", "miner")
	if err != nil {
		return err
	}
	limit, after, err := q.page(DefaultLimit, MaxLimit, cursorDuels, 8+32+8+2)
	if err != nil {
		return err
	}
	v, byValidator, err := q.hotkey("validator")
	if err != nil {
		return err
	}
	m, byMiner, err := q.hotkey("miner")
	if err != nil {
		return err
	}
	page := Page[DuelRow]{Items: []DuelRow{}}
	err = srv.index.read(func(x *index) error {
		ds := x.sortedDuels(func(d *duelEntry) bool {
			return (!byValidator || d.validator == v) && (!byMiner || d.r.Champion.Hotkey == m || d.r.Contender.Hotkey == m)
		})
		var prev *duelEntry
		for _, d := range ds {
			if after != nil && bytes.Compare(duelKey(d), after) <= 0 {
				continue
			}
			if len(page.Items) == limit {
				page.Next = encodeCursor(cursorDuels, duelKey(prev))
				break
			}
			page.Items = append(page.Items, duelRow(d))
			prev = d
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, page)
}

// DuelView is GET /api/v1/duels/{cid}: the result, the rule it was decided
// by, and per env the curve of the contender's win rate with its Wilson
// interval against the number of challenges, to compare with RatioPPM.
type DuelView struct {
	DuelRow
	Rule duel.Rule `json:"rule"`
	// Curves has one entry per env, in the record's order.
	Curves []EnvCurve `json:"curves"`
	// OtherRecords are results other validators recorded for the same
	// duel ID.
	OtherRecords []DuelRow `json:"other_records"`
	// RatioNowPPM is the ratio to beat the recording validator's results
	// leave in force at its head's anchor.
	RatioNowPPM uint32 `json:"ratio_now_ppm"`
}

// EnvCurve is one env of a duel, challenge by challenge.
type EnvCurve struct {
	Env        string       `json:"env"`
	Challenges []string     `json:"challenges"`
	Points     []CurvePoint `json:"points"`
}

func (srv *server) duel(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	var entry *duelEntry
	var out DuelView
	err = srv.index.read(func(x *index) error {
		d := x.duelByCID[c]
		if d == nil {
			return nil
		}
		entry = d
		out.OtherRecords = []DuelRow{}
		for _, o := range x.duelsByID[d.id] {
			if o != d {
				out.OtherRecords = append(out.OtherRecords, duelRow(o))
			}
		}
		var mine []*duelEntry
		for _, e := range x.duels {
			if e.validator == d.validator {
				mine = append(mine, e)
			}
		}
		f, _ := foldFrontier(srv.opts.Frontier, mine, x.adoptions[d.validator])
		out.RatioNowPPM = srv.opts.Frontier.Floor()
		if h, err := srv.s.Head(d.validator); err == nil && f != nil && h.Anchor.Number >= f.SetAt {
			out.RatioNowPPM, _ = srv.opts.Frontier.Ratio(*f, h.Anchor.Number)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if entry == nil {
		return errNotFound(fmt.Sprintf("duel result %s is not linked by any block in this store", c))
	}
	raw, err := srv.s.Object(c)
	if err == nil {
		err = codec.CheckCID(raw, c)
	}
	if err != nil {
		return err
	}
	res, err := duel.Decode(raw)
	if err != nil {
		return fmt.Errorf("%w: duel result %s: %v", ledger.ErrCorrupt, c, err)
	}
	out.DuelRow = duelRow(entry)
	out.Rule = res.Rule
	for _, e := range res.Envs {
		ec := EnvCurve{Env: e.Env, Challenges: make([]string, len(e.Challenges)), Points: Curve(res.Rule, e.Outcomes)}
		for i, id := range e.Challenges {
			ec.Challenges[i] = id.String()
		}
		out.Curves = append(out.Curves, ec)
	}
	return writeJSON(w, out)
}

// duelTranscripts lists the transcripts of a duel result's duel in the
// recording validator's log, by leaf; the cursor is the last row's leaf.
func (srv *server) duelTranscripts(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	limit, after, err := q.page(DefaultLimit, MaxLimit, cursorDuelTranscripts, 8)
	if err != nil {
		return err
	}
	var id record.DuelID
	var v keys.PublicKey
	err = srv.index.read(func(x *index) error {
		d := x.duelByCID[c]
		if d == nil {
			return errNotFound(fmt.Sprintf("duel result %s is not linked by any block in this store", c))
		}
		id, v = d.id, d.validator
		return nil
	})
	if err != nil {
		return err
	}
	page := Page[TranscriptSummary]{Items: []TranscriptSummary{}}
	var lastLeaf uint64
	for ref, err := range srv.s.TranscriptsByDuel(id) {
		if err != nil {
			return err
		}
		if ref.Validator != v || (after != nil && ref.Leaf <= be64(after)) {
			continue
		}
		if len(page.Items) == limit {
			page.Next = encodeCursor(cursorDuelTranscripts, appendBE64(nil, lastLeaf))
			break
		}
		t, err := srv.readTranscript(ref)
		if err != nil {
			return err
		}
		page.Items = append(page.Items, transcriptSummary(ref, t))
		lastLeaf = ref.Leaf
	}
	return writeJSON(w, page)
}
