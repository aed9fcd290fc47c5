package explorer

import (
	"bytes"
	"math"
	"net/http"
	"slices"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// The leaderboard ranks models across envs by relative score (spec/api.md,
// "Leaderboard"). It is informational: weights follow the duels.

// ModelInput is one model's results: per env, the number of transcripts
// and the mean scaled score.
type ModelInput struct {
	Hash  []byte
	Names []string
	N     map[string]uint64
	Mean  map[string]float64
	// Miners are the hotkeys that served it, each with the block of its
	// commitment (or of its first transcript, without a chain).
	Miners []MinerCredit
}

// MinerCredit is one miner serving a model. The earliest commitment holds
// the credit; the others are copies.
type MinerCredit struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	// Block is the chain block of its commitment, or, without a chain (or
	// without a commitment of this model on it), the anchor of the first
	// block holding one of its transcripts of the model.
	Block   uint64 `json:"block"`
	FirstMS int64  `json:"first_ms"`
	// FromChain tells whether Block is the on-chain commitment block.
	FromChain bool `json:"from_chain"`
	Copy      bool `json:"copy"`
}

// LeaderRow is one model on the leaderboard.
type LeaderRow struct {
	Rank      int      `json:"rank"`
	ModelHash string   `json:"model_hash"`
	Names     []string `json:"names"`
	// Miner is the credited miner: the earliest commitment.
	Miner  keys.PublicKey `json:"miner"`
	Miners []MinerCredit  `json:"miners"`
	Envs   []LeaderEnv    `json:"envs"`
	// MinRelative is the smallest relative score over the ranked envs;
	// MeanRelative their mean, CV their coefficient of variation,
	// Penalty = 1 / (1 + CV) and Score = MinRelative × Penalty.
	MinRelative  float64 `json:"min_relative"`
	MeanRelative float64 `json:"mean_relative"`
	CV           float64 `json:"cv"`
	Penalty      float64 `json:"penalty"`
	Score        float64 `json:"score"`
	// Complete is true when the model has MinSamples transcripts in every
	// ranked env.
	Complete bool `json:"complete"`
}

// LeaderEnv is a model's standing in one env.
type LeaderEnv struct {
	Env string `json:"env"`
	N   uint64 `json:"n"`
	// Mean is the model's mean scaled score, GroupMean the mean of the
	// counted models' means, Relative = Mean / GroupMean (0 when the model
	// has fewer than MinSamples transcripts here, 1 when GroupMean is 0).
	Mean      float64 `json:"mean"`
	GroupMean float64 `json:"group_mean"`
	Relative  float64 `json:"relative"`
	Counted   bool    `json:"counted"`
}

// Rank computes the leaderboard of models with minSamples (at least 1).
// The envs ranked are those in which at least one model has minSamples
// transcripts, in byte order.
func Rank(models []ModelInput, minSamples uint64) (envs []string, rows []LeaderRow) {
	minSamples = max(minSamples, 1)
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, m := range models {
		for env, n := range m.N {
			if n >= minSamples {
				sums[env] += m.Mean[env]
				counts[env]++
			}
		}
	}
	for env := range counts {
		envs = append(envs, env)
	}
	slices.Sort(envs)
	group := map[string]float64{}
	for _, env := range envs {
		group[env] = sums[env] / float64(counts[env])
	}
	for _, m := range models {
		row := LeaderRow{ModelHash: hexOf(m.Hash), Names: m.Names, Miners: slices.Clone(m.Miners), Complete: len(envs) > 0}
		sortCredits(row.Miners)
		if len(row.Miners) > 0 {
			row.Miner = row.Miners[0].Hotkey
			for i := 1; i < len(row.Miners); i++ {
				row.Miners[i].Copy = true
			}
		}
		rels := make([]float64, 0, len(envs))
		for _, env := range envs {
			le := LeaderEnv{Env: env, N: m.N[env], GroupMean: group[env]}
			if le.N >= minSamples {
				le.Counted, le.Mean = true, m.Mean[env]
				le.Relative = 1
				if le.GroupMean > 0 {
					le.Relative = le.Mean / le.GroupMean
				}
			} else {
				le.Mean = m.Mean[env]
				row.Complete = false
			}
			row.Envs = append(row.Envs, le)
			rels = append(rels, le.Relative)
		}
		row.MinRelative, row.MeanRelative, row.CV = spread(rels)
		row.Penalty = 1 / (1 + row.CV)
		row.Score = row.MinRelative * row.Penalty
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b LeaderRow) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		if c := compareCredit(first(a.Miners), first(b.Miners)); c != 0 {
			return c
		}
		return cmpString(a.ModelHash, b.ModelHash)
	})
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return envs, rows
}

// spread returns the minimum, mean and coefficient of variation
// (population standard deviation over mean, 0 for a zero mean) of xs.
func spread(xs []float64) (lo, mean, cv float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	lo = xs[0]
	for _, x := range xs {
		lo = min(lo, x)
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return lo, mean, 0
	}
	var ss float64
	for _, x := range xs {
		// Rounded before the sum, so that no build fuses it into a
		// multiply-add (arm64 does): the page is the same on every machine.
		ss += float64((x - mean) * (x - mean))
	}
	return lo, mean, math.Sqrt(ss/float64(len(xs))) / mean
}

func first(cs []MinerCredit) MinerCredit {
	if len(cs) == 0 {
		return MinerCredit{Block: math.MaxUint64}
	}
	return cs[0]
}

// compareCredit orders miners by commitment: block, then first
// transcript time, then hotkey bytes.
func compareCredit(a, b MinerCredit) int {
	switch {
	case a.Block != b.Block:
		return cmpUint(a.Block, b.Block)
	case a.FirstMS != b.FirstMS:
		return cmpUint(uint64(a.FirstMS), uint64(b.FirstMS))
	}
	return bytes.Compare(a.Hotkey[:], b.Hotkey[:])
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortCredits(cs []MinerCredit) { slices.SortFunc(cs, compareCredit) }

// LeaderboardView is GET /api/v1/leaderboard.
type LeaderboardView struct {
	MinSamples uint64   `json:"min_samples"`
	Envs       []string `json:"envs"`
	// Credit says where commitment blocks come from: "chain" or "ledger"
	// (the anchor of a miner's first transcript).
	Credit string `json:"credit"`
	Page[LeaderRow]
}

// MaxMinSamples bounds the min_samples parameter.
const MaxMinSamples = 1_000_000

func (srv *server) leaderboard(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor", "min_samples")
	if err != nil {
		return err
	}
	limit, c, err := q.page(DefaultLimit, MaxLimit, cursorLeaderboard, 8)
	if err != nil {
		return err
	}
	minSamples, ok, err := q.uint("min_samples", MaxMinSamples)
	if err != nil {
		return err
	}
	if !ok {
		minSamples = 1
	}
	if minSamples == 0 {
		return errBadRequest("min_samples must be at least 1")
	}
	commits := map[keys.PublicKey]chain.Contender{}
	out := LeaderboardView{MinSamples: minSamples, Credit: "ledger", Page: Page[LeaderRow]{Items: []LeaderRow{}}}
	if srv.chain.enabled() {
		if snap, err := srv.chain.get(r.Context()); err == nil {
			out.Credit = "chain"
			for _, ct := range chain.Contenders(snap.Metagraph, snap.Commitments) {
				commits[ct.Hotkey] = ct
			}
		}
	}
	var models []ModelInput
	err = srv.index.read(func(x *index) error {
		for _, md := range x.models {
			in := ModelInput{Hash: md.hash, Names: sortedNames(md.names), N: map[string]uint64{}, Mean: map[string]float64{}}
			for env, e := range md.envs {
				in.N[env], in.Mean[env] = e.n, e.scaledSum/float64(e.n)
			}
			for k, seen := range md.hotkeys {
				mc := MinerCredit{Hotkey: k, Block: seen.anchor, FirstMS: seen.ms}
				if ct, ok := commits[k]; ok {
					id := ct.Commitment.Identity()
					if bytes.Equal(id[:], md.hash) {
						mc.Block, mc.FromChain = ct.Block, true
					}
				}
				in.Miners = append(in.Miners, mc)
			}
			models = append(models, in)
		}
		return nil
	})
	if err != nil {
		return err
	}
	envs, rows := Rank(models, minSamples)
	out.Envs = append([]string{}, envs...)
	offset := uint64(0)
	if c != nil {
		if offset = be64(c); offset >= uint64(len(rows)) && len(rows) > 0 {
			return errBadRequest("cursor: past the leaderboard's end")
		}
	}
	for i := offset; i < uint64(len(rows)); i++ {
		if len(out.Items) == limit {
			out.Next = encodeCursor(cursorLeaderboard, appendBE64(nil, i))
			break
		}
		out.Items = append(out.Items, rows[i])
	}
	return writeJSON(w, out)
}
