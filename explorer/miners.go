package explorer

import (
	"bytes"
	"net/http"
	"slices"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// MinerRow is a row of GET /api/v1/miners.
type MinerRow struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	// UID, Model, Revision, ModelHash and Endpoint are as the miner's
	// latest transcript records them.
	UID         uint16 `json:"uid"`
	Model       string `json:"model"`
	Revision    string `json:"revision"`
	ModelHash   string `json:"model_hash"`
	Endpoint    string `json:"endpoint"`
	Transcripts uint64 `json:"transcripts"`
	// Errors counts transcripts with a transport or protocol error.
	Errors uint64 `json:"errors"`
	// MeanScore is the mean scaled score over all its transcripts.
	MeanScore   float64 `json:"mean_score"`
	FirstMS     int64   `json:"first_ms"`
	LastMS      int64   `json:"last_ms"`
	FirstAnchor uint64  `json:"first_anchor"`
	Envs        int     `json:"envs"`
	Validators  int     `json:"validators"`
	Duels       int     `json:"duels"`
}

func minerRow(m *minerAgg) MinerRow {
	row := MinerRow{
		Hotkey: m.hotkey, UID: m.latest.UID, Model: clipText(m.latest.Model, maxSummaryText), Revision: clipText(m.latest.Revision, maxSummaryText),
		ModelHash: hexOf(m.latest.ModelHash), Endpoint: clipText(m.latest.Endpoint, maxSummaryText),
		Transcripts: m.transcripts, Errors: m.errors, FirstMS: m.firstMS, LastMS: m.latestMS, FirstAnchor: m.firstAnchor,
		Envs: len(m.envs), Validators: len(m.validators), Duels: len(m.duels),
	}
	var sum float64
	for _, e := range m.envs {
		sum += e.scaledSum
	}
	if m.transcripts > 0 {
		row.MeanScore = sum / float64(m.transcripts)
	}
	return row
}

// EnvStats are a miner's or a model's results in one env.
type EnvStats struct {
	Env        string  `json:"env"`
	N          uint64  `json:"n"`
	MeanReward float64 `json:"mean_reward"`
	MeanScore  float64 `json:"mean_score"`
	MinReward  int64   `json:"min_reward"`
	MaxReward  int64   `json:"max_reward"`
}

func envStats(m map[string]*envAgg) []EnvStats {
	out := []EnvStats{}
	for env, e := range m {
		out = append(out, EnvStats{Env: env, N: e.n, MeanReward: float64(e.sum) / float64(e.n), MeanScore: e.scaledSum / float64(e.n),
			MinReward: e.min, MaxReward: e.max})
	}
	slices.SortFunc(out, func(a, b EnvStats) int { return cmpString(a.Env, b.Env) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (srv *server) miners(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	limit, after, err := q.page(DefaultLimit, MaxLimit, cursorMiners, 32)
	if err != nil {
		return err
	}
	page := Page[MinerRow]{Items: []MinerRow{}}
	err = srv.index.read(func(x *index) error {
		hotkeys := make([]keys.PublicKey, 0, len(x.miners))
		for k := range x.miners {
			if after == nil || bytes.Compare(k[:], after) > 0 {
				hotkeys = append(hotkeys, k)
			}
		}
		slices.SortFunc(hotkeys, func(a, b keys.PublicKey) int { return bytes.Compare(a[:], b[:]) })
		for i, k := range hotkeys {
			if i == limit {
				last := hotkeys[i-1]
				page.Next = encodeCursor(cursorMiners, last[:])
				break
			}
			page.Items = append(page.Items, minerRow(x.miners[k]))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, page)
}

// MinerView is GET /api/v1/miners/{hotkey}.
type MinerView struct {
	MinerRow
	EnvStats []EnvStats `json:"env_stats"`
	// ByValidator counts its transcripts in each validator's log.
	ByValidator []ValidatorCount `json:"by_validator"`
	// Models are the models it served (identity hash, names seen).
	Models []ModelSeen `json:"models"`
	// DuelList are the duel results it took part in, newest first (at
	// most 200).
	DuelList   []DuelRow            `json:"duel_list"`
	Commitment *MinerCommitmentView `json:"commitment,omitempty"`
	Neuron     *NeuronView          `json:"neuron,omitempty"`
}

// ValidatorCount is a number of transcripts in one validator's log.
type ValidatorCount struct {
	Validator   keys.PublicKey `json:"validator"`
	Transcripts uint64         `json:"transcripts"`
}

// ModelSeen is one model a miner served.
type ModelSeen struct {
	ModelHash string   `json:"model_hash"`
	Names     []string `json:"names"`
}

func (srv *server) miner(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	k, err := pathHotkey(r)
	if err != nil {
		return err
	}
	var out MinerView
	found := false
	err = srv.index.read(func(x *index) error {
		m := x.miners[k]
		if m == nil {
			return nil
		}
		found = true
		out = MinerView{MinerRow: minerRow(m), EnvStats: envStats(m.envs), ByValidator: []ValidatorCount{}, Models: []ModelSeen{}, DuelList: []DuelRow{}}
		for v, n := range m.validators {
			out.ByValidator = append(out.ByValidator, ValidatorCount{v, n})
		}
		slices.SortFunc(out.ByValidator, func(a, b ValidatorCount) int { return bytes.Compare(a.Validator[:], b.Validator[:]) })
		for key := range m.modelKeys {
			md := x.models[key]
			out.Models = append(out.Models, ModelSeen{ModelHash: hexOf(md.hash), Names: sortedNames(md.names)})
		}
		slices.SortFunc(out.Models, func(a, b ModelSeen) int { return cmpString(a.ModelHash, b.ModelHash) })
		ds := slices.Clone(m.duels)
		slices.SortFunc(ds, func(a, b *duelEntry) int { return bytes.Compare(duelKey(a), duelKey(b)) })
		for _, d := range ds {
			if len(out.DuelList) == 200 {
				break
			}
			out.DuelList = append(out.DuelList, duelRow(d))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return errNotFound("miner " + k.String() + " has no transcript in this store")
	}
	if srv.chain.enabled() {
		out.Commitment = srv.chain.minerCommitment(r.Context(), k)
		out.Neuron = srv.chain.neuron(r.Context(), k)
	}
	return writeJSON(w, out)
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, clipText(n, maxSummaryText))
	}
	slices.Sort(out)
	return out
}

// minerTranscripts lists a miner's transcripts in every validator's log,
// by validator then leaf, optionally of one env. The cursor is the last
// row's (validator, leaf); the store's miner index has no seek, so a deep
// page skips index entries (without reading transcripts) up to it.
//
// The env is in the transcript, not the index, so a filtered page reads
// the rows it skips: it reads at most MaxScan transcripts and, if it stops
// there, ends early with a cursor after the last row read. A full page
// reads ahead to the next matching row, so that next is "" when none is
// left (within the same bound).
func (srv *server) minerTranscripts(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor", "env")
	if err != nil {
		return err
	}
	k, err := pathHotkey(r)
	if err != nil {
		return err
	}
	limit, err := q.limit(DefaultLimit, MaxPointsLimit)
	if err != nil {
		return err
	}
	env, err := q.env()
	if err != nil {
		return err
	}
	after, err := q.cursor(cursorMinerTranscripts, 40)
	if err != nil {
		return err
	}
	known := false
	if err := srv.index.read(func(x *index) error { known = x.miners[k] != nil; return nil }); err != nil {
		return err
	}
	if !known {
		return errNotFound("miner " + k.String() + " has no transcript in this store")
	}
	page := Page[TranscriptSummary]{Items: []TranscriptSummary{}}
	var last ledger.TranscriptRef // the last row read: the next page starts after it
	read := 0
	for ref, err := range srv.s.TranscriptsByMiner(k) {
		if err != nil {
			return err
		}
		if after != nil && bytes.Compare(refKey(ref), after) <= 0 {
			continue
		}
		full := len(page.Items) == limit
		if (full && env == "") || read == MaxScan {
			page.Next = encodeCursor(cursorMinerTranscripts, refKey(last))
			break
		}
		t, err := srv.readTranscript(ref)
		if err != nil {
			return err
		}
		read++
		if env != "" && t.Env != env {
			last = ref
			continue
		}
		if full {
			// ref matches: the next page starts with it.
			page.Next = encodeCursor(cursorMinerTranscripts, refKey(last))
			break
		}
		page.Items = append(page.Items, transcriptSummary(ref, t))
		last = ref
	}
	return writeJSON(w, page)
}

func refKey(ref ledger.TranscriptRef) []byte {
	return appendBE64(append([]byte(nil), ref.Validator[:]...), ref.Leaf)
}
