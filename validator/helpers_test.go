package validator_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
	"github.com/affine-ledger/ledger/validator"
)

// minerSpec is a reference miner to start and commit.
type minerSpec struct {
	name     string // also the model name and the hotkey's derivation path
	strategy string
	seed     uint64
	// hash overrides the model hash (hex), to commit a copy on purpose.
	hash string
}

// testNet is a local chain (manual blocks) with a validator hotkey and
// reference miners on loopback, committed in the order given, one block
// apart.
type testNet struct {
	chain  *local.Chain
	key    *keys.Hotkey
	miners map[string]chain.Contender
	keys   map[string]*keys.Hotkey
}

func hotkey(t testing.TB, uri string) *keys.Hotkey {
	t.Helper()
	k, err := keys.FromURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// chainWith starts a manual local chain with the validator (//Alice) and
// the named miners registered, and no commitments yet.
func chainWith(t testing.TB, names []string) *testNet {
	t.Helper()
	return chainWithGenesis(t, names, func(*local.Genesis) {})
}

// chainWithGenesis is chainWith with the genesis changed by edit before
// the miners are registered.
func chainWithGenesis(t testing.TB, names []string, edit func(*local.Genesis)) *testNet {
	t.Helper()
	n := &testNet{key: hotkey(t, "//Alice"), miners: map[string]chain.Contender{}, keys: map[string]*keys.Hotkey{}}
	g := local.DefaultGenesis()
	g.Seed = "validator test " + t.Name()
	g.Tempo = 100_000
	g.BlockTime = local.Duration(time.Hour)
	g.Neurons = []local.GenesisNeuron{{Hotkey: n.key.Public(), Stake: 1000, Validator: true}}
	edit(&g)
	for _, name := range names {
		n.keys[name] = hotkey(t, "//"+name)
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: n.keys[name].Public(), Stake: 10})
	}
	c, err := local.New(local.Options{Genesis: &g, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	n.chain = c
	return n
}

func newNet(t testing.TB, specs ...minerSpec) *testNet {
	t.Helper()
	return newNetWithGenesis(t, func(*local.Genesis) {}, specs...)
}

// newNetWithGenesis is newNet with the genesis changed by edit.
func newNetWithGenesis(t testing.TB, edit func(*local.Genesis), specs ...minerSpec) *testNet {
	t.Helper()
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	n := chainWithGenesis(t, names, edit)
	c := n.chain
	ctx := context.Background()
	for _, s := range specs {
		st, err := miner.ParseStrategy(s.strategy)
		if err != nil {
			t.Fatal(err)
		}
		model := "test/" + s.name
		cfg := miner.Config{Strategy: st, Model: model, ModelHash: s.hash, Seed: s.seed, Solvers: miner.EnvSolvers()}
		srv, ep := minertest.Start(t, cfg)
		hash, err := hex.DecodeString(srv.Config().ModelHash)
		if err != nil {
			t.Fatal(err)
		}
		mc := chain.MinerCommitment{Model: model, Revision: "r1", Endpoint: ep.BaseURL, ModelHash: hash}
		fields, err := mc.Fields()
		if err != nil {
			t.Fatalf("miner %s: %v", s.name, err)
		}
		if err := c.SetCommitment(ctx, n.keys[s.name], fields); err != nil {
			t.Fatalf("miner %s: commit: %v", s.name, err)
		}
		n.advance(t)
	}
	q, err := validator.Queue(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range q {
		for name, k := range n.keys {
			if k.Public() == m.Hotkey {
				n.miners[name] = m
			}
		}
	}
	return n
}

func (n *testNet) advance(t testing.TB) {
	t.Helper()
	if err := n.chain.Advance(1); err != nil {
		t.Fatal(err)
	}
}

// autoAdvance produces a block every d until the test ends.
func (n *testNet) autoAdvance(t testing.TB, d time.Duration) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(d)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				n.chain.Advance(1)
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
}

func openStore(t testing.TB, dir string) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fastEnvs are three single-turn envs whose reference solvers are quick.
func fastEnvs(t testing.TB) []envs.Factory {
	t.Helper()
	var out []envs.Factory
	for _, name := range []string{"abd", "mult8", "sat"} {
		f, err := registry.Latest(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// shortRule decides clear cases within a few dozen challenges per env.
func shortRule() duel.Rule {
	return duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16, 32, 64}, MaxChallenges: 200}
}

func testClient(timeout time.Duration) *inference.Client {
	return inference.New(inference.Options{
		Timeout: timeout, MaxAttempts: 2, BaseBackoff: 5 * time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		PerMiner: 16, Overall: 128,
	})
}

// recorder collects progress events.
type recorder struct {
	mu     sync.Mutex
	events []validator.Progress
	blocks []ledger.Receipt
}

func (r *recorder) progress(p validator.Progress) {
	r.mu.Lock()
	r.events = append(r.events, p)
	r.mu.Unlock()
}

func (r *recorder) block(rc ledger.Receipt) {
	r.mu.Lock()
	r.blocks = append(r.blocks, rc)
	r.mu.Unlock()
}

func (r *recorder) count(stage validator.Stage) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Stage == stage {
			n++
		}
	}
	return n
}

func (n *testNet) config(s *ledger.Store, rec *recorder) validator.Config {
	cfg := validator.Config{
		Chain: n.chain, Store: s, Key: n.key,
		Client: testClient(5 * time.Second),
		Envs:   nil, Poll: 10 * time.Millisecond,
		BlockInterval: 2 * time.Millisecond,
	}
	if rec != nil {
		cfg.Progress, cfg.OnBlock = rec.progress, rec.block
	}
	return cfg
}

func newValidator(t testing.TB, cfg validator.Config) *validator.Validator {
	t.Helper()
	v, err := validator.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func describe(r duel.Result) string {
	s := fmt.Sprintf("winner %s, %d envs won, ratio %d:", r.Winner, r.EnvsWon, r.RatioPPM)
	for _, e := range r.Envs {
		s += fmt.Sprintf(" %s %dW/%dL/%dD %s(%s)", e.Env, e.Wins, e.Losses, e.Draws, e.Decision, e.Reason)
	}
	return s
}

// runDuels runs v until its history holds want duels, then stops it and
// checks that Run ended with the stop.
func runDuels(t *testing.T, ctx context.Context, v *validator.Validator, want int) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for len(v.History().Entries) < want {
		select {
		case err := <-done:
			t.Fatalf("Run stopped after %d of %d duels: %v", len(v.History().Entries), want, err)
		case <-ctx.Done():
			t.Fatalf("the loop stalled: %d of %d duels", len(v.History().Entries), want)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
}
