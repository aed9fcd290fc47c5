package explorer_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/keys"
)

// TestWithChain serves the shared store with a local chain on which the
// fixture's validators and miners are registered: Alice committed her
// head, Bob a root this store does not hold; the miners committed their
// models, the copy after the contender.
func TestWithChain(t *testing.T) {
	t.Parallel()
	f := shared.f
	filler, _ := keys.FromURI("//Filler")
	g := local.DefaultGenesis()
	g.Seed = "explorer test"
	g.Tempo = 100
	g.Neurons = []local.GenesisNeuron{
		{Hotkey: f.Validators[0].Public(), Stake: 1000, Validator: true},
		{Hotkey: f.Validators[1].Public(), Stake: 500, Validator: true},
		{Hotkey: filler.Public(), Stake: 1},
		{Hotkey: f.Champion.Key.Public(), Stake: 1},
		{Hotkey: f.Contender.Key.Public(), Stake: 1},
		{Hotkey: f.Copy.Key.Public(), Stake: 1},
		{Hotkey: f.Weak.Key.Public(), Stake: 1},
	}
	c, err := local.New(local.Options{Genesis: &g, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	commit := func(k *keys.Hotkey, fields []chain.Data) {
		t.Helper()
		if err := c.SetCommitment(ctx, k, fields); err != nil {
			t.Fatal(err)
		}
		if err := c.Advance(1); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []explorertest.Miner{f.Champion, f.Contender, f.Weak, f.Copy} {
		fields, err := chain.MinerCommitment{Model: m.Model, Revision: "r1", Endpoint: "http://127.0.0.1:9/" + m.Name, ModelHash: m.ModelHash}.Fields()
		if err != nil {
			t.Fatal(err)
		}
		commit(m.Key, fields)
	}
	alice, bob := f.Validators[0], f.Validators[1]
	ah, _ := shared.s.Head(alice.Public())
	commit(alice, chain.ValidatorCommitment{Height: ah.Block.Height, Size: ah.Checkpoint.Size, Root: ah.Checkpoint.Root}.Fields())
	commit(bob, chain.ValidatorCommitment{Height: 1, Size: 7, Root: [32]byte{9}}.Fields())

	h, err := explorer.Handler(shared.s, explorer.Options{Chain: c, Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(path string, v any) {
		t.Helper()
		getJSONAt(t, srv.URL, path, v)
	}

	var cv explorer.ChainView
	get("/api/v1/chain", &cv)
	if len(cv.Contenders) != 4 || len(cv.ValidatorCommitments) != 2 || cv.Params.Tempo != 100 {
		t.Fatalf("chain view: %d contenders, %d validator commitments, tempo %d", len(cv.Contenders), len(cv.ValidatorCommitments), cv.Params.Tempo)
	}
	status := map[keys.PublicKey]string{}
	for _, v := range cv.ValidatorCommitments {
		status[v.Hotkey] = v.Status
	}
	if status[alice.Public()] != "matches" || status[bob.Public()] != "mismatch" {
		t.Errorf("commitment status %v: want Alice matches, Bob mismatch", status)
	}

	var copyView explorer.MinerView
	get("/api/v1/miners/"+f.Copy.Key.Public().String(), &copyView)
	if copyView.Commitment == nil || copyView.Commitment.CopyOf == nil || *copyView.Commitment.CopyOf != f.Contender.UID || copyView.Neuron == nil {
		t.Errorf("copy's commitment %+v: want a copy of uid %d", copyView.Commitment, f.Contender.UID)
	}

	var vt explorer.VTrustView
	get("/api/v1/vtrust", &vt)
	if vt.Source != explorer.SourceChain || len(vt.Validators) != 2 || vt.Validators[0].Stake+vt.Validators[1].Stake != 1500 || vt.Tempo != 100 {
		t.Errorf("vtrust from the chain: source %s validators %+v tempo %d", vt.Source, vt.Validators, vt.Tempo)
	}
	if vt.Epoch == nil || vt.Epoch.Output == nil || vt.Epoch.Output.Champion.Hotkey != f.Contender.Key.Public() {
		t.Errorf("epoch %+v: the contender should win with all the stake", vt.Epoch)
	}

	var lb explorer.LeaderboardView
	get("/api/v1/leaderboard", &lb)
	if lb.Credit != "chain" {
		t.Errorf("leaderboard credit %q", lb.Credit)
	}
	for _, row := range lb.Items {
		if row.Miner == f.Contender.Key.Public() && (!row.Miners[0].FromChain || row.Miners[1].Hotkey != f.Copy.Key.Public()) {
			t.Errorf("contender's model credits: %+v", row.Miners)
		}
	}
}
