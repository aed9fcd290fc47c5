package epoch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/rng"
)

// modelWorld is like world, but the duel sides carry the miners' model
// identities (as validator.Side writes them, and as ChainMajority reads
// them back), the stakes are the test's, and the duel block every
// validator records is anchored where the test wants it (none at 0).
type modelWorld struct {
	store      *ledger.Store
	keys       []*keys.Hotkey
	chain      *local.Chain
	champ, con duel.Side
}

func newModelWorld(t *testing.T, commitReveal bool, duelAnchor uint64, stake []uint64, tune ...func(*local.Genesis)) *modelWorld {
	t.Helper()
	s, ks := buildStoreLying(t, len(stake), false)
	w := &modelWorld{store: s, keys: ks}
	champ := recordtest.Hotkey(t, "//Champion")
	con := recordtest.Hotkey(t, "//Contender")
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime, g.CommitReveal, g.RevealPeriod = t.Name(), tempo, local.Duration(time.Second), commitReveal, 1
	for i, k := range ks {
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: stake[i], Validator: true})
	}
	g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: champ.Public()}, local.GenesisNeuron{Hotkey: con.Public()})
	for _, f := range tune {
		f(&g)
	}
	var err error
	if w.chain, err = local.New(local.Options{Genesis: &g, Manual: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.chain.Close() })
	ctx := context.Background()
	for _, m := range []*keys.Hotkey{champ, con} {
		mc := chain.MinerCommitment{Model: "org/model-" + m.Public().String()[:6], Revision: "main", Endpoint: "http://127.0.0.1:1/v1"}
		f, err := mc.Fields()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.chain.SetCommitment(ctx, m, f); err != nil {
			t.Fatal(err)
		}
		if err := w.chain.Advance(1); err != nil {
			t.Fatal(err)
		}
		id := mc.Identity()
		side := duel.Side{Hotkey: m.Public(), ModelHash: id[:]}
		if m == champ {
			w.champ = side
		} else {
			w.con = side
		}
	}
	if duelAnchor == 0 {
		return w
	}
	// Every validator records the same duel, won by the contender.
	for _, k := range ks {
		b, _, err := duel.Encode(w.result(t, duel.Win))
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.NewAppender(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Append(ctx, recordtest.Anchor(duelAnchor), nil, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// result is a duel of w's champion and contender in which every
// challenge has outcome o, fed until it decides.
func (w *modelWorld) result(t *testing.T, o duel.Outcome) duel.Result {
	t.Helper()
	return w.duel(t, w.champ, w.con, o)
}

// duel is a duel of champion and contender in which every challenge has
// outcome o, fed until it decides.
func (w *modelWorld) duel(t *testing.T, champion, contender duel.Side, o duel.Outcome) duel.Result {
	t.Helper()
	a := recordtest.Anchor(3)
	var samples []duel.Sample
	for i := range 24 {
		var seed [32]byte
		seed = rng.Derive(seed, string(rune('a'+i)))
		samples = append(samples, duel.Sample{ID: challenge.ID{Env: "mult8", Version: 1, Seed: seed}, Outcome: o})
		r, err := duel.Recompute(duel.Input{
			Start:    duel.Anchor{Number: a.Number, Hash: duel.Hash(a.Hash)},
			Champion: champion, Contender: contender,
			Rule: duel.EverySampleRule(1960, 12, 24), RatioPPM: 500_000,
			Envs: []duel.EnvInput{{Env: "mult8", Samples: samples}},
		})
		if errors.Is(err, duel.ErrUndecided) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Fatal("duel undecided after 24 samples")
	return duel.Result{}
}

func (w *modelWorld) drivers(t *testing.T, champion duel.Side) []*Driver {
	t.Helper()
	var ds []*Driver
	for _, k := range w.keys {
		d, err := New(Config{Chain: w.chain, Store: w.store, Key: k, Champion: champion})
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

// stepAll advances the chain just past epoch k's boundary and runs epoch k
// on every driver, in order.
func (w *modelWorld) stepAll(t *testing.T, ds []*Driver, k uint64) []Report {
	t.Helper()
	ctx := context.Background()
	head, _ := w.chain.Head(ctx)
	p, err := w.chain.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(int(Boundary(k, p.Schedule()) + 1 - head.Number)); err != nil {
		t.Fatal(err)
	}
	reps := make([]Report, len(ds))
	for i, d := range ds {
		rep, err := d.Step(ctx, k)
		if err != nil {
			t.Fatalf("validator %d epoch %d: %v", i, k, err)
		}
		reps[i] = rep
	}
	return reps
}
