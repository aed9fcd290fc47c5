package explorer

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// index is what the pages need that the store has no index for: per-miner
// and per-model score sums, duel summaries, and per epoch the height range
// of each chain's blocks in it. It reads every block once, in height order
// per chain, and catches up with the store at most every refresh.
//
// Memory: one entry per miner, per model, per (miner or model, env), per
// duel result, per validator and per (validator, epoch); nothing per
// transcript or per outcome.
type index struct {
	s       *ledger.Store
	sched   chain.Schedule
	refresh time.Duration
	log     *slog.Logger

	// mu guards everything below; refresh holds it while it reads.
	mu   sync.Mutex
	last time.Time
	// gen counts the blocks indexed, so caches can tell new data.
	gen    uint64
	chains map[keys.PublicKey]*chainState
	miners map[keys.PublicKey]*minerAgg
	models map[string]*modelAgg
	duels  []*duelEntry
	// duelsByID maps a ledger duel ID to its results (one per validator
	// that recorded it).
	duelsByID map[record.DuelID][]*duelEntry
	duelByCID map[cid.Cid]*duelEntry
	// adoptions are each validator's adoption records, in ledger order.
	adoptions map[keys.PublicKey][]adoptEntry
	epochs    map[uint64]*epochData
	anchors   map[cid.Cid]uint64
	counts    indexCounts
	// problems are records the index could not read (at most maxProblems).
	problems []string
}

// indexCounts are totals over what was indexed.
type indexCounts struct {
	Blocks      uint64 `json:"blocks"`
	Transcripts uint64 `json:"transcripts"`
	DuelResults uint64 `json:"duel_results"`
	Outcomes    uint64 `json:"outcomes"`
	// OtherDecisions are decision records of another type (adoption
	// records among them).
	OtherDecisions uint64 `json:"other_decisions"`
}

const maxProblems = 100

type chainState struct {
	next uint64 // next height to index
}

// minerAgg sums one miner hotkey's transcripts.
type minerAgg struct {
	hotkey keys.PublicKey
	// latest is the miner as its most recent transcript (by start time)
	// records it.
	latest   record.Miner
	latestMS int64
	firstMS  int64
	// firstAnchor is the anchor number of the first block holding one of
	// its transcripts: the ledger's stand-in for a commitment block.
	firstAnchor uint64
	transcripts uint64
	errors      uint64
	envs        map[string]*envAgg
	validators  map[keys.PublicKey]uint64
	modelKeys   map[string]bool
	duels       []*duelEntry
}

// modelAgg sums one model's transcripts, whoever served it.
type modelAgg struct {
	key  string // model identity, see modelKey
	hash []byte
	// names are "model@revision" as transcripts record them.
	names map[string]bool
	envs  map[string]*envAgg
	// hotkeys maps each miner that served it to when it first did.
	hotkeys map[keys.PublicKey]firstSeen
}

type firstSeen struct {
	anchor uint64
	ms     int64
}

// envAgg sums rewards of one env: raw and scaled to [0, 1] by the env's
// reward bounds (spec/api.md, "Scores").
type envAgg struct {
	n         uint64
	sum       int64
	scaledSum float64
	min, max  int64
}

func (e *envAgg) add(reward int64, scaled float64) {
	if e.n == 0 || reward < e.min {
		e.min = reward
	}
	if e.n == 0 || reward > e.max {
		e.max = reward
	}
	e.n++
	e.sum += reward
	e.scaledSum += scaled
}

// duelEntry is one duel result as a validator's block links it.
type duelEntry struct {
	record    cid.Cid
	validator keys.PublicKey
	block     cid.Cid
	height    uint64
	index     int    // position in the block's decisions
	epoch     uint64 // whose window holds the block's anchor
	timeMS    int64
	id        record.DuelID
	r         duel.Result // Envs[].Challenges cleared to save memory
	n         int         // challenges answered
}

// epochData is where an epoch's records are: per chain, the heights of its
// blocks whose anchor lies in the epoch (a contiguous range, anchors never
// decrease along a chain).
type epochData struct {
	ranges map[keys.PublicKey]heightRange
	// outcomesIn are the epochs of the (auditors') blocks that hold
	// outcome records about this epoch's records: an epoch reads the
	// outcomes about records in blocks anchored in it (spec/vtrust.md),
	// wherever the auditor recorded them.
	outcomesIn map[uint64]bool
	votes      int
	outcomes   int
	// version is bumped whenever something of the epoch is indexed.
	version uint64
}

func (x *index) epoch(e uint64) *epochData {
	ep := x.epochs[e]
	if ep == nil {
		ep = &epochData{ranges: map[keys.PublicKey]heightRange{}, outcomesIn: map[uint64]bool{}}
		x.epochs[e] = ep
	}
	return ep
}

// anchorOf returns the anchor number of block c, through a bounded cache:
// outcomes about one block come in runs.
func (x *index) anchorOf(c cid.Cid) (uint64, error) {
	if n, ok := x.anchors[c]; ok {
		return n, nil
	}
	b, err := x.s.Block(c)
	if err != nil {
		return 0, err
	}
	if len(x.anchors) >= maxAnchorCache {
		clear(x.anchors)
	}
	x.anchors[c] = b.Anchor.Number
	return b.Anchor.Number, nil
}

const maxAnchorCache = 4096

type heightRange struct{ from, to uint64 }

func newIndex(s *ledger.Store, sched chain.Schedule, refresh time.Duration, log *slog.Logger) *index {
	return &index{
		s: s, sched: sched, refresh: refresh, log: log,
		chains: map[keys.PublicKey]*chainState{}, miners: map[keys.PublicKey]*minerAgg{},
		models: map[string]*modelAgg{}, duelsByID: map[record.DuelID][]*duelEntry{},
		duelByCID: map[cid.Cid]*duelEntry{}, adoptions: map[keys.PublicKey][]adoptEntry{}, epochs: map[uint64]*epochData{}, anchors: map[cid.Cid]uint64{},
	}
}

// read brings the index up to date (unless it was within refresh) and
// runs fn on it under the lock; fn must not keep references to mutable
// parts.
func (x *index) read(fn func(x *index) error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.refresh < 0 || time.Since(x.last) >= x.refresh {
		if err := x.catchUp(); err != nil {
			return err
		}
		x.last = time.Now()
	}
	return fn(x)
}

// catchUp indexes every block stored since the last call.
func (x *index) catchUp() error {
	type todo struct {
		v    keys.PublicKey
		head uint64
	}
	var work []todo
	for h, err := range x.s.Heads() {
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		st := x.chains[h.Block.Validator]
		if st == nil {
			st = &chainState{}
			x.chains[h.Block.Validator] = st
		}
		if st.next <= h.Block.Height {
			work = append(work, todo{h.Block.Validator, h.Block.Height})
		}
	}
	for _, t := range work {
		st := x.chains[t.v]
		for b, err := range x.s.Blocks(t.v, st.next) {
			if err != nil {
				return fmt.Errorf("index: validator %s: %w", t.v, err)
			}
			if b.Height > t.head {
				break
			}
			x.addBlock(b)
			st.next = b.Height + 1
		}
	}
	return nil
}

func (x *index) problem(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	x.log.Warn("explorer: index: " + msg)
	if len(x.problems) < maxProblems {
		x.problems = append(x.problems, msg)
	}
}

// epochOfBlock is the epoch whose window holds chain block n: epoch k reads
// chain epoch k−1 and runs when chain epoch k begins (spec/epoch.md), so
// the node, `ledger vtrust show` and this view number epochs alike.
func epochOfBlock(n uint64, s chain.Schedule) uint64 { return s.Of(n) + 1 }

func (x *index) addBlock(b ledger.StoredBlock) {
	x.gen++
	x.counts.Blocks++
	v := b.Validator
	e := epochOfBlock(b.Anchor.Number, x.sched)
	ep := x.epoch(e)
	ep.version++
	if r, ok := ep.ranges[v]; ok {
		ep.ranges[v] = heightRange{r.from, b.Height}
	} else {
		ep.ranges[v] = heightRange{b.Height, b.Height}
	}
	for i, c := range b.TranscriptCIDs() {
		t, err := x.readTranscript(c)
		if err != nil {
			x.problem("validator %s height %d transcript %d (%s): %v", v, b.Height, i, c, err)
			continue
		}
		x.addTranscript(t, b.Anchor.Number)
	}
	for i, c := range b.DecisionCIDs() {
		raw, err := x.s.Object(c)
		if err == nil {
			err = codec.CheckCID(raw, c)
		}
		if err != nil {
			x.problem("validator %s height %d decision %d (%s): %v", v, b.Height, i, c, err)
			continue
		}
		switch recordType(raw) {
		case duel.ResultType:
			r, err := duel.Decode(raw)
			if err != nil {
				x.problem("validator %s height %d decision %d (%s): %v", v, b.Height, i, c, err)
				continue
			}
			x.addDuel(b, i, c, r)
			ep.votes++
		case vtrust.OutcomeType:
			o, err := vtrust.DecodeOutcome(raw)
			if err != nil {
				x.problem("validator %s height %d decision %d (%s): %v", v, b.Height, i, c, err)
				continue
			}
			x.counts.Outcomes++
			n, err := x.anchorOf(o.Block.Cid)
			if err != nil {
				// The audited block is not (yet) here: its epoch is
				// unknown, the outcome cannot count anywhere.
				continue
			}
			about := x.epoch(epochOfBlock(n, x.sched))
			about.outcomesIn[e] = true
			about.outcomes++
			about.version++
		case duel.AdoptType:
			x.counts.OtherDecisions++
			a, err := duel.DecodeAdopt(raw)
			if err != nil {
				x.problem("validator %s height %d decision %d (%s): %v", v, b.Height, i, c, err)
				continue
			}
			x.adoptions[v] = append(x.adoptions[v], adoptEntry{height: b.Height, index: i, a: a})
		default:
			x.counts.OtherDecisions++
		}
	}
}

func (x *index) readTranscript(c cid.Cid) (*record.Transcript, error) {
	raw, err := x.s.Object(c)
	if err != nil {
		return nil, err
	}
	if err := codec.CheckCID(raw, c); err != nil {
		return nil, err
	}
	return record.DecodeTranscript(raw)
}

func (x *index) addTranscript(t *record.Transcript, anchor uint64) {
	x.counts.Transcripts++
	scaled := scaleReward(t.Env, t.EnvVersion, t.Reward)
	m := x.miners[t.Miner.Hotkey]
	if m == nil {
		m = &minerAgg{hotkey: t.Miner.Hotkey, firstMS: t.StartedMS, firstAnchor: anchor,
			envs: map[string]*envAgg{}, validators: map[keys.PublicKey]uint64{}, modelKeys: map[string]bool{}}
		x.miners[t.Miner.Hotkey] = m
	}
	if m.transcripts == 0 || t.StartedMS >= m.latestMS {
		m.latest, m.latestMS = t.Miner, t.StartedMS
	}
	m.firstMS = min(m.firstMS, t.StartedMS)
	m.firstAnchor = min(m.firstAnchor, anchor)
	m.transcripts++
	if t.Error != "" {
		m.errors++
	}
	agg(m.envs, t.Env).add(t.Reward, scaled)
	m.validators[t.Validator]++

	key := modelKey(t.Miner)
	m.modelKeys[key] = true
	md := x.models[key]
	if md == nil {
		md = &modelAgg{key: key, hash: modelHashOf(t.Miner), names: map[string]bool{}, envs: map[string]*envAgg{}, hotkeys: map[keys.PublicKey]firstSeen{}}
		x.models[key] = md
	}
	if len(md.names) < 16 {
		md.names[t.Miner.Model+"@"+t.Miner.Revision] = true
	}
	agg(md.envs, t.Env).add(t.Reward, scaled)
	seen, ok := md.hotkeys[t.Miner.Hotkey]
	if !ok || anchor < seen.anchor || (anchor == seen.anchor && t.StartedMS < seen.ms) {
		md.hotkeys[t.Miner.Hotkey] = firstSeen{anchor: anchor, ms: t.StartedMS}
	}
}

func agg(m map[string]*envAgg, env string) *envAgg {
	e := m[env]
	if e == nil {
		e = &envAgg{}
		m[env] = e
	}
	return e
}

func (x *index) addDuel(b ledger.StoredBlock, i int, c cid.Cid, r duel.Result) {
	x.counts.DuelResults++
	if x.duelByCID[c] != nil {
		// The same record linked by another block (another validator
		// recorded the identical result): keep the first.
		return
	}
	n := 0
	for j := range r.Envs {
		n += len(r.Envs[j].Challenges)
		r.Envs[j].Challenges = nil
	}
	d := &duelEntry{
		record: c, validator: b.Validator, block: b.CID, height: b.Height, index: i, timeMS: b.TimeMS,
		epoch: epochOfBlock(b.Anchor.Number, x.sched),
		id: record.Duel{Champion: r.Champion.Hotkey, Contender: r.Contender.Hotkey,
			Start: record.Anchor{Number: r.Start.Number, Hash: record.Hash(r.Start.Hash)}}.ID(),
		r: r, n: n,
	}
	x.duels = append(x.duels, d)
	x.duelByCID[c] = d
	x.duelsByID[d.id] = append(x.duelsByID[d.id], d)
	for _, k := range []keys.PublicKey{r.Champion.Hotkey, r.Contender.Hotkey} {
		if m := x.miners[k]; m != nil {
			m.duels = append(m.duels, d)
		} else {
			// A duel result can precede any transcript of a miner only in
			// a ledger that lost them; still list the miner.
			x.miners[k] = &minerAgg{hotkey: k, latest: record.Miner{Hotkey: k}, firstMS: b.TimeMS, firstAnchor: b.Anchor.Number,
				envs: map[string]*envAgg{}, validators: map[keys.PublicKey]uint64{}, modelKeys: map[string]bool{}, duels: []*duelEntry{d}}
		}
	}
}

// modelKey is a model's identity: its hash when the transcript has one,
// else the hash chain.MinerCommitment.Identity gives model and revision.
func modelKey(m record.Miner) string { return string(modelHashOf(m)) }

func modelHashOf(m record.Miner) []byte {
	if len(m.ModelHash) > 0 {
		return slices.Clone(m.ModelHash)
	}
	id := identityOf(m.Model, m.Revision)
	return id[:]
}

// recordType returns a decision record's "type" field, "" if it has none
// or is not a map.
func recordType(data []byte) string {
	typ, _, _ := record.DecisionType(data)
	return typ
}

// sortedDuels returns the duels newest first: by start block descending,
// then validator, height and position ascending (the order of the duels
// list and its cursor).
func (x *index) sortedDuels(keep func(*duelEntry) bool) []*duelEntry {
	var out []*duelEntry
	for _, d := range x.duels {
		if keep == nil || keep(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *duelEntry) int { return bytes.Compare(duelKey(a), duelKey(b)) })
	return out
}

// duelKey orders duels: start number descending (complemented), then
// validator, height and decision index.
func duelKey(d *duelEntry) []byte {
	k := make([]byte, 0, 8+32+8+2)
	k = appendBE64(k, ^d.r.Start.Number)
	k = append(k, d.validator[:]...)
	k = appendBE64(k, d.height)
	return append(k, byte(d.index>>8), byte(d.index))
}

func appendBE64(b []byte, v uint64) []byte {
	return append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

var errStop = errors.New("stop")
