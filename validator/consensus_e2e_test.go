package validator_test

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
	"github.com/affine-ledger/ledger/validator"
	"github.com/affine-ledger/ledger/verify"
)

// TestSplitValidatorRejoinsConsensus: three validators of equal stake
// duel the same contender over one store, a real local chain and real
// miners. The contender's endpoint serves Charlie garbage, so Charlie's
// duel keeps the champion while Alice's and Bob's dethrone it, and the
// epoch crowns the contender. Charlie's next duel must be against the
// consensus champion, in a reign of its own; before the duel loop
// followed the consensus (spec/validator.md version 1) it dueled its own
// champion again, on a pair the consensus never visits.
func TestSplitValidatorRejoinsConsensus(t *testing.T) {
	t.Parallel()
	bob, charlie := hotkey(t, "//Bob"), hotkey(t, "//Charlie")
	n := newNetWithGenesis(t, func(g *local.Genesis) {
		g.Tempo = 2000
		g.Neurons[0].Stake = 100
		for _, k := range []*keys.Hotkey{bob, charlie} {
			g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: 100, Validator: true})
		}
	}, minerSpec{name: "Noisy", strategy: "noisy:0.6"}, minerSpec{name: "Perfect", strategy: "perfect"},
		minerSpec{name: "Third", strategy: "noisy:0.6", seed: 3})
	ctx := testCtx(t, 90*time.Second)
	s := openStore(t, t.TempDir())
	defer s.Close()

	// What the contender serves Charlie: its model, answered with garbage.
	perfect := n.miners["Perfect"]
	garbage, err := miner.ParseStrategy("garbage")
	if err != nil {
		t.Fatal(err)
	}
	id := perfect.Commitment.Identity()
	_, bad := minertest.Start(t, miner.Config{Strategy: garbage, Model: perfect.Commitment.Model, ModelHash: hex.EncodeToString(id[:]), Solvers: miner.EnvSolvers()})
	served := func(m chain.Contender) (inference.Endpoint, error) {
		if m.Hotkey == perfect.Hotkey {
			return inference.Endpoint{Key: m.Hotkey.String(), BaseURL: bad.BaseURL, Model: m.Commitment.Model}, nil
		}
		return validator.DefaultEndpoint("")(m)
	}
	driver, err := epoch.New(epoch.Config{Chain: n.chain, Store: s, Key: charlie, Champion: validator.Side(n.miners["Noisy"])})
	if err != nil {
		t.Fatal(err)
	}
	loop := func(k *keys.Hotkey, edit func(*validator.Config)) *validator.Validator {
		cfg := n.config(s, nil)
		cfg.Key, cfg.Envs, cfg.Rule = k, fastEnvs(t), shortRule()
		edit(&cfg)
		v := newValidator(t, cfg)
		t.Cleanup(func() { v.Close() })
		return v
	}
	x := loop(charlie, func(c *validator.Config) { c.Endpoint, c.Consensus = served, driver })

	// Each duels the first champion against the contender, once.
	n.autoAdvance(t, 5*time.Millisecond)
	peers := []*validator.Validator{loop(n.key, func(*validator.Config) {}), loop(bob, func(*validator.Config) {})}
	for _, v := range append(peers, x) {
		r, err := v.RunDuel(ctx, n.miners["Noisy"], perfect)
		if err != nil {
			t.Fatal(err)
		}
		want := "contender"
		if v == x {
			want = "champion"
		}
		if r.Winner != want {
			t.Fatalf("a duel of the contender: winner %s, want %s", r.Winner, want)
		}
	}

	// The epoch whose window holds the three duels.
	p, err := n.chain.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := epoch.Boundary(1, p.Schedule())
	if last := x.History().Entries[0].Start.Number; last >= end {
		t.Fatalf("the duels ran past epoch 1's window (block %d, window ends at %d): the chain moved too fast", last, end)
	}
	head, err := n.chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.Number < end+1 {
		if err := n.chain.Advance(int(end + 1 - head.Number)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := driver.Step(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Output.Champion.Hotkey != perfect.Hotkey {
		t.Fatalf("epoch 1 crowned %s, want the contender two of three validators saw win", rep.Output.Champion.Hotkey.Short())
	}

	// Charlie's loop picks its next duel.
	runDuels(t, ctx, x, 2)
	e := x.History().Entries[1]
	if e.Champion.Hotkey != perfect.Hotkey || e.Contender.Hotkey != n.miners["Third"].Hotkey || !e.NewReign {
		t.Fatalf("Charlie's next duel: %s against %s, new reign %v; want Third against the consensus champion, in a new reign",
			e.Contender.Hotkey.Short(), e.Champion.Hotkey.Short(), e.NewReign)
	}

	// The reign starts from the ratio the peers' results set, not the
	// floor: Charlie adopted the frontier of the later of the two duels
	// that crowned the champion.
	src := peers[0].History().Entries[0]
	if b := peers[1].History().Entries[0]; b.Start.Number > src.Start.Number ||
		b.Start.Number == src.Start.Number && bytes.Compare(b.Record.Bytes(), src.Record.Bytes()) < 0 {
		src = b
	}
	fp := duel.DefaultFrontierParams()
	if e.Adopted == nil {
		t.Fatal("the reign of the consensus champion started with no adoption record")
	}
	a := e.Adopted.Adopt
	if !a.Source.Cid.Equals(src.Record) || a.From != src.Block.Validator || a.SetPPM != src.After.SetPPM || a.SetAt != src.After.SetAt {
		t.Fatalf("adopted %s of %s (set %d at %d), want %s of %s (set %d at %d)",
			a.Source.Cid, a.From.Short(), a.SetPPM, a.SetAt, src.Record, src.Block.Validator.Short(), src.After.SetPPM, src.After.SetAt)
	}
	want, err := fp.Ratio(src.After, e.Start.Number)
	if err != nil {
		t.Fatal(err)
	}
	if e.RatioPPM != want || want <= fp.Floor() {
		t.Fatalf("Charlie's duel ran at %d ppm, want the peers' %d ppm (floor %d)", e.RatioPPM, want, fp.Floor())
	}
	// The ledger alone gives the same history.
	h, err := validator.LoadHistory(s, charlie.Public(), fp)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Adoptions) != 1 || h.Entries[1].Adopted == nil || !h.Entries[1].Adopted.Record.Equals(e.Adopted.Record) || !reflect.DeepEqual(h.Frontier, x.History().Frontier) {
		t.Fatalf("reloaded: %d adoptions, frontier %+v; the running loop's %+v", len(h.Adoptions), h.Frontier, x.History().Frontier)
	}
	// An auditor's verify takes the adoption record as the opaque record
	// it is to the ledger, and re-executes everything else.
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Reexecute: true, Challenges: verify.NewMemSet()})
	if err != nil || !audit.OK || audit.Chains != 3 {
		t.Fatalf("verify: %v: %+v", err, audit)
	}
}
