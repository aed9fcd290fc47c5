package epoch

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
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
		appendDuel(t, s, k, duelAnchor, w.result(t, k.Public(), duel.Win))
	}
	return w
}

// result is v's record of a duel of w's champion and contender in which
// every challenge has outcome o (playDuel).
func (w *modelWorld) result(t *testing.T, v keys.PublicKey, o duel.Outcome) verifytest.Duel {
	t.Helper()
	return w.duel(t, v, w.champ, w.con, 0, o)
}

// duel is v's record of a duel of champion and contender, its challenges
// drawn from counter from on, in which every challenge has outcome o.
func (w *modelWorld) duel(t *testing.T, v keys.PublicKey, champion, contender duel.Side, from uint64, o duel.Outcome) verifytest.Duel {
	t.Helper()
	return playDuel(t, v, champion, contender, recordtest.Anchor(3), from, o)
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
