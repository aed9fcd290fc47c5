// Package explorertest fills a ledger store with what a small network
// records, for the explorer's tests and the browser test: two validators
// that each ran a duel between two reference miners over real envs (every
// challenge derived from the duel's anchor and played through the env with
// its reference solver or its plausible wrong answer), the duels' decision
// records made by duel.Recompute, transcripts of two more miners outside
// any duel (one serving a copy of the contender's model), a transcript
// whose model output is hostile HTML, and re-execution outcomes one
// validator recorded about the other.
//
// Everything is deterministic but the block signatures and block times.
package explorertest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/rng"
	"github.com/affine-ledger/ledger/vtrust"
)

// Envs are the envs of the fixture's duels, in byte order (tictactoe is
// multi-turn).
var Envs = []string{"mult8", "sat", "tictactoe"}

// Rule is the duels' sequential rule: short, so a duel takes tens of
// challenges per env.
func Rule() duel.Rule {
	return duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16, 32, 64}, MaxChallenges: 200}
}

// XSSReply is the model output of the hostile transcript. A page that
// interprets it as HTML sets window.__xss.
const XSSReply = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2"><b>bold?</b>`

// Miner is a reference miner of the fixture.
type Miner struct {
	Name      string
	Key       *keys.Hotkey
	UID       uint16
	Model     string
	ModelHash []byte
	// WrongPPM is how often (per million) it answers with the env's
	// plausible wrong answer instead of the reference solution.
	WrongPPM uint32
}

// Side returns the miner as a duel side.
func (m Miner) Side() duel.Side {
	return duel.Side{Hotkey: m.Key.Public(), ModelHash: append(duel.HexBytes(nil), m.ModelHash...)}
}

func (m Miner) ledgerMiner() record.Miner {
	return record.Miner{Hotkey: m.Key.Public(), UID: m.UID, Model: m.Model, Revision: "r1",
		ModelHash: append(record.Bytes(nil), m.ModelHash...), Endpoint: "http://127.0.0.1:9/" + m.Name}
}

// Fixture is what Fill wrote.
type Fixture struct {
	Validators []*keys.Hotkey
	// Champion, Contender, Copy (the contender's model under another
	// hotkey, committed later) and Weak (outside the duels).
	Champion, Contender, Copy, Weak Miner
	// Transcripts are every transcript's CID, in append order.
	Transcripts []cid.Cid
	// Duels are the decision records of the duels, one per validator, and
	// Results their decoded content.
	Duels   []cid.Cid
	Results []duel.Result
	// Outcomes are the re-execution outcome records.
	Outcomes []cid.Cid
	// XSS is the transcript whose reply is XSSReply.
	XSS cid.Cid
	// Multi is a multi-turn (tictactoe) transcript.
	Multi cid.Cid
}

func hotkey(uri string) *keys.Hotkey {
	k, err := keys.FromURI(uri)
	if err != nil {
		panic(err)
	}
	return k
}

func modelHash(name string) []byte {
	h := sha256.Sum256([]byte("explorertest model " + name))
	return h[:]
}

// New returns the fixture's keys and miners without writing anything.
func New() *Fixture {
	return &Fixture{
		Validators: []*keys.Hotkey{hotkey("//Alice"), hotkey("//Bob")},
		Champion:   Miner{Name: "champion", Key: hotkey("//Champion"), UID: 3, Model: "affine/champion-7b", ModelHash: modelHash("champion"), WrongPPM: 450_000},
		Contender:  Miner{Name: "contender", Key: hotkey("//Contender"), UID: 4, Model: "affine/contender-7b", ModelHash: modelHash("contender"), WrongPPM: 120_000},
		Copy:       Miner{Name: "copy", Key: hotkey("//Copycat"), UID: 5, Model: "copycat/contender-7b", ModelHash: modelHash("contender"), WrongPPM: 120_000},
		Weak:       Miner{Name: "weak", Key: hotkey("//Weak"), UID: 6, Model: "affine/weak-1b", ModelHash: modelHash("weak"), WrongPPM: 700_000},
	}
}

// Anchor is the deterministic chain anchor of block number n.
func Anchor(n uint64) record.Anchor {
	return record.Anchor{Number: n, Hash: sha256.Sum256(binary.BigEndian.AppendUint64([]byte("explorertest anchor"), n))}
}

// Fill writes the fixture into s through appenders of its two
// validators, which it closes. The store must hold no chain of theirs.
func Fill(s *ledger.Store) (*Fixture, error) {
	f := New()
	w := &writer{f: f, s: s}
	for i, v := range f.Validators {
		if err := w.validator(i, v); err != nil {
			return nil, fmt.Errorf("explorertest: validator %s: %w", v.Public().Short(), err)
		}
	}
	return f, nil
}

type writer struct {
	f *Fixture
	s *ledger.Store
}

// validator writes one validator's chain: outside transcripts, a duel and
// (for the second) outcomes about the first's transcripts.
func (w *writer) validator(i int, key *keys.Hotkey) error {
	a, err := w.s.NewAppender(key, ledger.WithMaxBatch(64))
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	v := key.Public()

	// Outside any duel: the weak miner, one challenge of each env at
	// anchor 40+i; the first validator also records the hostile reply.
	loose := Anchor(uint64(40 + i))
	xss := -1
	if err := w.loose(ctx, a, v, w.f.Weak, loose, i, func(ts []record.Transcript) ([]record.Transcript, error) {
		if i != 0 {
			return ts, nil
		}
		t, err := w.playHostile(v, w.f.Weak, loose)
		xss = len(ts)
		return append(ts, t), err
	}, &xss); err != nil {
		return err
	}

	// The duel, from anchor 100+i.
	start := Anchor(uint64(100 + i))
	rec, err := w.duel(ctx, a, v, start)
	if err != nil {
		return err
	}
	// The copy of the contender's model shows up after the duel, at
	// anchor 120+i.
	if err := w.loose(ctx, a, v, w.f.Copy, Anchor(uint64(120+i)), i, nil, nil); err != nil {
		return err
	}

	data, c, err := duel.Encode(rec)
	if err != nil {
		return err
	}
	decisions := [][]byte{data}
	if i == 1 {
		outs, err := w.outcomes(key)
		if err != nil {
			return err
		}
		decisions = append(decisions, outs...)
	}
	if _, err := a.Append(ctx, Anchor(uint64(150+i)), nil, decisions); err != nil {
		return err
	}
	w.f.Duels = append(w.f.Duels, c)
	w.f.Results = append(w.f.Results, rec)
	return nil
}

// loose appends one transcript of m per env at anchor, outside any duel;
// extra may add more to the block, and *mark (if set and not -1) is then
// the index of a transcript whose CID becomes f.XSS.
func (w *writer) loose(ctx context.Context, a *ledger.Appender, v keys.PublicKey, m Miner, anchor record.Anchor, i int,
	extra func([]record.Transcript) ([]record.Transcript, error), mark *int) error {
	var ts []record.Transcript
	for _, env := range Envs {
		t, err := w.play(v, m, anchor, env, 0, record.DuelID{}, uint64(i*1_000_000))
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	if extra != nil {
		var err error
		if ts, err = extra(ts); err != nil {
			return err
		}
	}
	rc, err := a.Append(ctx, anchor, ts, nil)
	if err != nil {
		return err
	}
	w.f.Transcripts = append(w.f.Transcripts, rc.Transcripts...)
	if mark != nil && *mark >= 0 {
		w.f.XSS = rc.Transcripts[*mark]
	}
	return nil
}

// duel plays champion against contender over Envs, counters 0, 1, ... per
// env, each challenge to both miners and the pair appended together,
// until the duel rule decides; then recomputes the record from the
// outcomes.
func (w *writer) duel(ctx context.Context, a *ledger.Appender, v keys.PublicKey, start record.Anchor) (duel.Result, error) {
	ch, co := w.f.Champion, w.f.Contender
	p := duel.DefaultFrontierParams()
	d, err := duel.NewDuel(Rule(), p.Floor(), Envs)
	if err != nil {
		return duel.Result{}, err
	}
	id := record.Duel{Champion: ch.Key.Public(), Contender: co.Key.Public(), Start: start}.ID()
	in := duel.Input{
		Start:    duel.Anchor{Number: start.Number, Hash: duel.Hash(start.Hash)},
		Champion: ch.Side(), Contender: co.Side(), Rule: Rule(), RatioPPM: p.Floor(),
		Envs: make([]duel.EnvInput, len(Envs)),
	}
	counters := make([]uint64, len(Envs))
	for e := range Envs {
		in.Envs[e].Env = Envs[e]
	}
	// Round-robin over the envs that still need outcomes, as a validator
	// with one challenge in flight per env would.
	for !d.Done() {
		progressed := false
		for e, env := range Envs {
			if d.State(e).Decision() != duel.Open || d.Done() {
				continue
			}
			progressed = true
			n := counters[e]
			counters[e]++
			tc, err := w.play(v, ch, start, env, n, id, 0)
			if err != nil {
				return duel.Result{}, err
			}
			tk, err := w.play(v, co, start, env, n, id, 0)
			if err != nil {
				return duel.Result{}, err
			}
			rc, err := a.Append(ctx, start, []record.Transcript{tc, tk}, nil)
			if err != nil {
				return duel.Result{}, err
			}
			w.f.Transcripts = append(w.f.Transcripts, rc.Transcripts...)
			if env == "tictactoe" && !w.f.Multi.Defined() {
				w.f.Multi = rc.Transcripts[0]
			}
			o := duel.Judge(tc.Reward, tk.Reward)
			if err := d.AddAt(e, o); err != nil {
				return duel.Result{}, err
			}
			in.Envs[e].Samples = append(in.Envs[e].Samples, duel.Sample{ID: tc.Challenge, Outcome: o})
		}
		if !progressed {
			break
		}
	}
	return duel.Recompute(in)
}

// outcomes are the second validator's verdicts on the first validator's
// first block's transcripts: agree on all but one, a disagreement on it.
func (w *writer) outcomes(auditor *keys.Hotkey) ([][]byte, error) {
	target := w.f.Validators[0].Public()
	blk, err := w.s.BlockAt(target, 0)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	judge := func(block, record cid.Cid, verdict vtrust.Verdict, reason string) error {
		o, err := vtrust.NewOutcome(auditor.Public(), target, block, record, verdict, reason)
		if err != nil {
			return err
		}
		data, c, err := o.Encode()
		if err != nil {
			return err
		}
		out = append(out, data)
		w.f.Outcomes = append(w.f.Outcomes, c)
		return nil
	}
	for j, t := range blk.TranscriptCIDs() {
		verdict, reason := vtrust.Agree, ""
		if j == 1 {
			verdict, reason = vtrust.Disagree, "seed: no recorded anchor derives it within the window"
		}
		if err := judge(blk.CID, t, verdict, reason); err != nil {
			return nil, err
		}
	}
	// And an agreement with the first validator's duel result, which its
	// transcripts back.
	for b, err := range w.s.Blocks(target, 0) {
		if err != nil {
			return nil, err
		}
		for _, l := range b.Decisions {
			if !l.Cid.Equals(w.f.Duels[0]) {
				continue
			}
			if err := judge(b.CID, l.Cid, vtrust.Agree, ""); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("the first validator's duel result %s is in none of its blocks", w.f.Duels[0])
}

// play puts challenge (anchor, env, counter) to m: the reference solver
// answers, except that m answers wrong WrongPPM of the time (decided by a
// stream seeded from the challenge and the miner, as a sampling
// temperature would).
func (w *writer) play(v keys.PublicKey, m Miner, anchor record.Anchor, env string, counter uint64, d record.DuelID, timeOffset uint64) (record.Transcript, error) {
	ref, err := reference(env)
	if err != nil {
		return record.Transcript{}, err
	}
	drawn := record.Seed{Anchor: anchor, Counter: counter}
	id, err := drawn.Derive(v, env, ref.Factory.Spec().Version)
	if err != nil {
		return record.Transcript{}, err
	}
	seed := sha256.Sum256(append([]byte(id.String()), m.Key.Public().SS58()...))
	r := rng.New(seed)
	wrong := r.Chance(uint64(m.WrongPPM), 1_000_000)
	ep, err := envs.Play(ref.Factory, id, func(conv []envs.Message) string {
		if wrong {
			if a, ok := ref.Wrong(conv, r); ok {
				return a
			}
		}
		a, _ := ref.Solve(conv)
		return a
	})
	if err != nil {
		return record.Transcript{}, err
	}
	ms := int64(1_750_000_000_000 + anchor.Number*60_000 + counter*1_500 + timeOffset)
	return transcript(v, m, d, drawn, ep, ms, seed), nil
}

// playHostile records a mult8 challenge answered with XSSReply.
func (w *writer) playHostile(v keys.PublicKey, m Miner, anchor record.Anchor) (record.Transcript, error) {
	ref, err := reference("mult8")
	if err != nil {
		return record.Transcript{}, err
	}
	drawn := record.Seed{Anchor: anchor, Counter: 1}
	id, err := drawn.Derive(v, "mult8", ref.Factory.Spec().Version)
	if err != nil {
		return record.Transcript{}, err
	}
	ep, err := envs.Play(ref.Factory, id, func([]envs.Message) string { return XSSReply })
	if err != nil {
		return record.Transcript{}, err
	}
	return transcript(v, m, record.DuelID{}, drawn, ep, 1_750_000_000_000+int64(anchor.Number)*60_000+700, sha256.Sum256([]byte("hostile"))), nil
}

// transcript records episode ep of challenge drawn, seed varying the
// details of the exchange.
func transcript(v keys.PublicKey, m Miner, d record.DuelID, drawn record.Seed, ep envs.Episode, startMS int64, seed [32]byte) record.Transcript {
	var inv record.InvocationID
	copy(inv[:], seed[:16])
	inv[0] |= 1
	t := record.Transcript{
		Format: record.TranscriptFormat, Challenge: ep.ID, Env: ep.ID.Env, EnvVersion: ep.ID.Version,
		Validator: v, Seed: &drawn, Miner: m.ledgerMiner(), Duel: d, Invocation: inv,
		Conversation: ep.Messages, TurnRewards: make([]int64, len(ep.Rewards)),
		Reward: int64(ep.Reward), Reason: ep.Reason,
		LatencyMS: 200 + uint64(seed[20])*4, Attempts: 1, HTTPStatus: 200,
		Usage:     &record.Usage{PromptTokens: 40 + uint64(seed[21]), CompletionTokens: 5 + uint64(seed[22])},
		StartedMS: startMS, FinishedMS: startMS + 200 + int64(seed[20])*4,
	}
	for i, r := range ep.Rewards {
		t.TurnRewards[i] = int64(r)
	}
	return t
}

func reference(env string) (registry.Reference, error) {
	for _, r := range registry.References() {
		if r.Factory.Spec().Name == env {
			return r, nil
		}
	}
	return registry.Reference{}, fmt.Errorf("no reference player for env %q", env)
}
