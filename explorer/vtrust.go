package explorer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/vtrust"
)

// The vTrust view runs vtrust.Epoch over the epochs the ledger holds
// (spec/api.md, "vTrust"). Votes and outcomes come from the store; who the
// validators are, their stake and the miners' uids and commitment blocks
// come from the chain's metagraph with --chain, else from the ledger
// (every chain in the store at stake 1, miners as their transcripts
// record them). The champion entering the first epoch is the champion of
// the earliest duel result; each later epoch starts with the previous
// one's winner.

// Sources of the vTrust view's validators and miners.
const (
	SourceLedger = "ledger"
	SourceChain  = "chain"
)

// EpochView is one epoch's vTrust, consensus and weights.
type EpochView struct {
	Epoch uint64 `json:"epoch"`
	// FirstBlock and LastBlock bound the chain blocks of the epoch.
	FirstBlock uint64 `json:"first_block"`
	LastBlock  uint64 `json:"last_block"`
	// Votes, Standing and Outcomes are the records fed to vtrust.Epoch.
	Votes    int `json:"votes"`
	Standing int `json:"standing"`
	Outcomes int `json:"outcomes"`
	// ChampionIn is the champion the epoch starts with (null: none).
	ChampionIn *duel.Side `json:"champion_in"`
	// Output is vtrust.Epoch's result; Error says why it failed.
	Output *vtrust.Output `json:"output"`
	Error  string         `json:"error,omitempty"`
}

// EpochSummary is one row of the epoch list.
type EpochSummary struct {
	Epoch    uint64 `json:"epoch"`
	Votes    int    `json:"votes"`
	Standing int    `json:"standing"`
	Outcomes int    `json:"outcomes"`
	// Winner is the champion at the epoch's end, null if none or failed.
	Winner *duel.Side `json:"winner"`
}

// VTrustView is GET /api/v1/vtrust.
type VTrustView struct {
	// Source is SourceChain or SourceLedger; Note says what that means.
	Source string         `json:"source"`
	Note   string         `json:"note"`
	Tempo  uint64         `json:"tempo"`
	Epochs []EpochSummary `json:"epochs"`
	// Epoch is the one asked for (default: the latest with records).
	Epoch *EpochView `json:"epoch"`
	// Inputs are the validators and miners every epoch was computed with.
	Validators []vtrust.Validator `json:"validators"`
	Miners     []vtrust.Miner     `json:"miners"`
}

const (
	noteLedger = "Stake and miners are not in the ledger: every validator with a chain in this store counts with stake 1, " +
		"miners' uids are those of their latest transcripts and their commitment blocks the anchors of their first transcripts. " +
		"Outcome records count as recorded; this view does not re-execute them. Start with --chain for the metagraph's stake and permits."
	noteChain = "Validators (permit holders) and stake, miners' uids and commitment blocks are the chain's now, applied to every epoch. " +
		"Outcome records count as recorded; this view does not re-execute them."
)

type epochCache struct {
	mu      sync.Mutex
	entries map[uint64]epochCacheEntry
}

type epochCacheEntry struct {
	key string
	out EpochView
}

func newEpochCache() *epochCache { return &epochCache{entries: map[uint64]epochCacheEntry{}} }

// epochPlan is what one epoch's computation reads, copied out of the index.
type epochPlan struct {
	epoch      uint64
	ranges     map[keys.PublicKey]heightRange
	outcomesIn []uint64
	version    uint64
	// standing are the duel results of the epochs before it that still
	// count (vtrust.StandingEpochs), and standingKey their epochs'
	// versions, which the cache compares.
	standing    []vtrust.Vote
	standingKey string
}

func (srv *server) vtrust(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "epoch")
	if err != nil {
		return err
	}
	want, asked, err := q.uint("epoch", 1<<62)
	if err != nil {
		return err
	}
	vals, miners, source, err := srv.epochInputs(r.Context())
	if err != nil {
		return err
	}
	var plans []epochPlan
	all := map[uint64]epochPlan{}
	var champion *duel.Side
	err = srv.index.read(func(x *index) error {
		votesOf := map[uint64][]vtrust.Vote{}
		for _, d := range x.duels {
			votesOf[d.epoch] = append(votesOf[d.epoch], vtrust.VoteOf(d.validator, d.record, d.r))
		}
		var last uint64
		candidates := map[uint64]bool{}
		for e, ep := range x.epochs {
			last = max(last, e)
			candidates[e] = true
			for after := e + 1; ep.votes > 0 && vtrust.StandingSince(after) <= e; after++ {
				candidates[after] = true
			}
		}
		for e, ep := range x.epochs {
			p := epochPlan{epoch: e, ranges: map[keys.PublicKey]heightRange{}, version: ep.version}
			for v, hr := range ep.ranges {
				p.ranges[v] = hr
			}
			for a := range ep.outcomesIn {
				p.outcomesIn = append(p.outcomesIn, a)
			}
			all[e] = p
		}
		// An epoch is computed when it holds records or votes of the
		// epochs before it still stand in it: standing votes alone can
		// dethrone (spec/vtrust.md, "Standing votes").
		for e := range candidates {
			if e == 0 || e > last {
				continue
			}
			p, ok := all[e]
			if !ok {
				p = epochPlan{epoch: e}
			}
			for before := vtrust.StandingSince(e); before < e; before++ {
				p.standing = append(p.standing, votesOf[before]...)
				if ep := x.epochs[before]; ep != nil {
					p.standingKey += fmt.Sprintf("/s%d:%d", before, ep.version)
				}
			}
			if ep := x.epochs[e]; (ep != nil && (ep.votes > 0 || ep.outcomes > 0)) || len(p.standing) > 0 {
				plans = append(plans, p)
			}
		}
		if ds := x.sortedDuels(nil); len(ds) > 0 {
			// sortedDuels is newest first; the earliest is last.
			c := ds[len(ds)-1].r.Champion
			champion = &c
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(plans, func(a, b epochPlan) int { return cmpUint(a.epoch, b.epoch) })
	out := VTrustView{Source: source, Note: noteLedger, Tempo: srv.opts.Tempo, Epochs: []EpochSummary{}, Validators: vals, Miners: miners}
	if source == SourceChain {
		out.Note = noteChain
	}
	if asked && !slices.ContainsFunc(plans, func(p epochPlan) bool { return p.epoch == want }) {
		return errNotFound(fmt.Sprintf("epoch %d holds no duel result or outcome in this store", want))
	}
	inputsKey := fingerprint(vals, miners)
	for _, p := range plans {
		ev, err := srv.epochView(p, all, champion, vals, miners, inputsKey)
		if err != nil {
			return err
		}
		sum := EpochSummary{Epoch: p.epoch, Votes: ev.Votes, Standing: ev.Standing, Outcomes: ev.Outcomes}
		if ev.Output != nil && ev.Output.Champion.Hotkey != (keys.PublicKey{}) {
			c := ev.Output.Champion
			sum.Winner, champion = &c, &c
		}
		out.Epochs = append(out.Epochs, sum)
		if (asked && p.epoch == want) || (!asked && p.epoch == plans[len(plans)-1].epoch) {
			out.Epoch = &ev
		}
	}
	return writeJSON(w, out)
}

// epochView computes (or reuses) one epoch.
func (srv *server) epochView(p epochPlan, all map[uint64]epochPlan, champion *duel.Side, vals []vtrust.Validator, miners []vtrust.Miner, inputsKey string) (EpochView, error) {
	key := fmt.Sprintf("%d/%s/%x%s", p.version, inputsKey, sideKeyOf(champion), p.standingKey)
	for _, a := range p.outcomesIn {
		key += fmt.Sprintf("/%d:%d", a, all[a].version)
	}
	srv.epochs.mu.Lock()
	if e, ok := srv.epochs.entries[p.epoch]; ok && e.key == key {
		srv.epochs.mu.Unlock()
		return e.out, nil
	}
	srv.epochs.mu.Unlock()

	in := vtrust.Input{Validators: vals, Miners: miners, Standing: p.standing}
	if champion != nil {
		in.Champion = *champion
	}
	// Votes: duel results in blocks anchored in the epoch.
	err := srv.eachDecision(p.ranges, func(v keys.PublicKey, c cid.Cid, raw []byte) error {
		if recordType(raw) != duel.ResultType {
			return nil
		}
		res, err := duel.Decode(raw)
		if err != nil {
			return nil // the index reports it as a problem
		}
		in.Votes = append(in.Votes, vtrust.VoteOf(v, c, res))
		return nil
	})
	if err != nil {
		return EpochView{}, err
	}
	// Outcomes about records in blocks anchored in the epoch, wherever
	// they were recorded.
	for _, a := range p.outcomesIn {
		err := srv.eachDecision(all[a].ranges, func(_ keys.PublicKey, _ cid.Cid, raw []byte) error {
			if recordType(raw) != vtrust.OutcomeType {
				return nil
			}
			o, err := vtrust.DecodeOutcome(raw)
			if err != nil {
				return nil
			}
			b, err := srv.s.Block(o.Block.Cid)
			if err != nil || epochOfBlock(b.Anchor.Number, srv.sched) != p.epoch {
				return nil
			}
			in.Outcomes = append(in.Outcomes, o)
			return nil
		})
		if err != nil {
			return EpochView{}, err
		}
	}
	first, _ := srv.sched.Start(p.epoch - 1)
	end, _ := srv.sched.Start(p.epoch)
	ev := EpochView{Epoch: p.epoch, FirstBlock: first, LastBlock: max(end, 1) - 1,
		Votes: len(in.Votes), Standing: len(in.Standing), Outcomes: len(in.Outcomes), ChampionIn: champion}
	o, err := vtrust.Epoch(in)
	if err != nil {
		ev.Error = err.Error()
	} else {
		ev.Output = &o
	}
	srv.epochs.mu.Lock()
	srv.epochs.entries[p.epoch] = epochCacheEntry{key: key, out: ev}
	srv.epochs.mu.Unlock()
	return ev, nil
}

// eachDecision streams the decision records of the blocks in ranges.
func (srv *server) eachDecision(ranges map[keys.PublicKey]heightRange, fn func(v keys.PublicKey, c cid.Cid, raw []byte) error) error {
	vs := make([]keys.PublicKey, 0, len(ranges))
	for v := range ranges {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(a, b keys.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	for _, v := range vs {
		hr := ranges[v]
		for b, err := range srv.s.Blocks(v, hr.from) {
			if err != nil {
				return err
			}
			if b.Height > hr.to {
				break
			}
			for _, c := range b.DecisionCIDs() {
				raw, err := srv.s.Object(c)
				if err == nil {
					err = codec.CheckCID(raw, c)
				}
				if err != nil {
					continue
				}
				if err := fn(v, c, raw); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// epochInputs returns the validators and miners of every epoch.
func (srv *server) epochInputs(ctx context.Context) ([]vtrust.Validator, []vtrust.Miner, string, error) {
	vals := []vtrust.Validator{}
	miners := []vtrust.Miner{}
	if srv.chain.enabled() {
		snap, err := srv.chain.get(ctx)
		if err != nil {
			return nil, nil, "", &apiError{http.StatusBadGateway, "chain: " + err.Error()}
		}
		commit := map[keys.PublicKey]uint64{}
		for _, c := range snap.Commitments {
			commit[c.Hotkey] = c.Block
		}
		for _, n := range snap.Metagraph.Neurons {
			if n.ValidatorPermit {
				vals = append(vals, vtrust.Validator{Hotkey: n.Hotkey, Stake: n.Stake})
			}
			miners = append(miners, vtrust.Miner{Hotkey: n.Hotkey, UID: n.UID, CommitBlock: commit[n.Hotkey]})
		}
		return vals, miners, SourceChain, nil
	}
	err := srv.index.read(func(x *index) error {
		for v := range x.chains {
			vals = append(vals, vtrust.Validator{Hotkey: v, Stake: 1})
		}
		// One hotkey per uid: the one seen latest keeps it (a uid is
		// reused after a deregistration).
		byUID := map[uint16]*minerAgg{}
		for _, m := range x.miners {
			if m.transcripts == 0 {
				continue
			}
			if o := byUID[m.latest.UID]; o == nil || m.latestMS > o.latestMS ||
				(m.latestMS == o.latestMS && bytes.Compare(m.hotkey[:], o.hotkey[:]) < 0) {
				byUID[m.latest.UID] = m
			}
		}
		for uid, m := range byUID {
			miners = append(miners, vtrust.Miner{Hotkey: m.hotkey, UID: uid, CommitBlock: m.firstAnchor})
		}
		return nil
	})
	slices.SortFunc(vals, func(a, b vtrust.Validator) int { return bytes.Compare(a.Hotkey[:], b.Hotkey[:]) })
	slices.SortFunc(miners, func(a, b vtrust.Miner) int { return cmpUint(uint64(a.UID), uint64(b.UID)) })
	return vals, miners, SourceLedger, err
}

func fingerprint(vals []vtrust.Validator, miners []vtrust.Miner) string {
	b, _ := json.Marshal(struct {
		V []vtrust.Validator
		M []vtrust.Miner
	}{vals, miners})
	h := sha256.Sum256(b)
	return fmt.Sprintf("%x", h[:8])
}

func sideKeyOf(s *duel.Side) []byte {
	if s == nil {
		return nil
	}
	return append(append([]byte(nil), s.Hotkey[:]...), s.ModelHash...)
}
