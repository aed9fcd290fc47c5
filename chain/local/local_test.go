package local

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

func TestInProcess(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	var calls atomic.Int32
	c := newManual(t, d.genesis, "", stakeConsensus(&calls))
	exercise(t, c, func(n int) { must(t, "advance", c.Advance(n)) }, d, &calls)
}

// The hash chain, computed here straight from its definition.
func TestBlockHashes(t *testing.T) {
	t.Parallel()
	g := newDevnet(t).genesis
	c := newManual(t, g, "", nil)
	must(t, "advance", c.Advance(700))
	h := sha256.Sum256([]byte("ledger/chain/local/v1/genesis\x00" + g.Seed))
	for n := uint64(0); n <= 700; n++ {
		if n > 0 {
			var num [8]byte
			binary.BigEndian.PutUint64(num[:], n)
			h = sha256.Sum256(append(append([]byte("ledger/chain/local/v1/block\x00"), h[:]...), num[:]...))
		}
		if n%97 == 0 || n == 256 || n == 511 || n == 512 || n == 700 {
			got, err := c.BlockHash(ctx(t), n)
			if err != nil || got != chain.Hash(h) {
				t.Fatalf("block %d: %s %v, want %x", n, got, err, h)
			}
		}
	}
}

func TestSetWeightsWithoutCommitReveal(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	g := d.genesis
	g.CommitReveal = false
	g.VersionKey = 5
	c := newManual(t, g, "", nil)
	cx := ctx(t)
	w := chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{3, 1}, VersionKey: 5}
	must(t, "set weights", c.SetWeights(cx, d.bob, w))
	if got := weightsOf(t, c, 1); len(got) != 2 || got[0] != 65535 || got[1] != 21845 {
		t.Fatalf("bob's weights %v", got)
	}
	old := w
	old.VersionKey = 4
	wantErr(t, "old version key", c.SetWeights(cx, d.bob, old), chain.ErrVersionKey)
	wantErr(t, "miner sets weights", c.SetWeights(cx, d.charlie, w), chain.ErrNoPermit)
	must(t, "miner's self-weight", c.SetWeights(cx, d.charlie, chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}, VersionKey: 5}))
	wantErr(t, "uid out of range", c.SetWeights(cx, d.bob, chain.Weights{UIDs: []uint16{9}, Values: []uint16{1}, VersionKey: 5}), chain.ErrBadWeights)
	wantErr(t, "duplicate uid", c.SetWeights(cx, d.bob, chain.Weights{UIDs: []uint16{2, 2}, Values: []uint16{1, 1}, VersionKey: 5}), chain.ErrBadWeights)
	wantErr(t, "commit with commit-reveal off", c.CommitWeights(cx, d.bob, chain.Hash{}), chain.ErrCommitRevealOff)
}

func TestRegister(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	c := newManual(t, d.genesis, "", nil)
	eve := hotkey(t, "//Eve")
	uid, err := c.Register(eve.Public(), 77, true)
	if err != nil || uid != 4 {
		t.Fatalf("register: uid %d %v", uid, err)
	}
	if uid, err := c.Register(d.bob.Public(), 5, false); err != nil || uid != 1 {
		t.Fatalf("re-register bob: uid %d %v", uid, err)
	}
	m, _ := c.Metagraph(ctx(t))
	if len(m.Neurons) != 5 || m.Neurons[4].Stake != 77 || m.Neurons[1].Stake != 5 || m.Neurons[1].ValidatorPermit {
		t.Fatalf("metagraph %+v", m.Neurons)
	}
	must(t, "eve commits", c.SetCommitment(ctx(t), eve, []chain.Data{chain.Raw([]byte("hi"))}))
}

// Signatures are required: a transaction signed by another key, over other
// bytes, for another chain, or replayed, is refused and changes nothing.
func TestForgedTransactions(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	c := newManual(t, d.genesis, "", nil)
	call := Call{Kind: CallSetCommitment, Netuid: 1, Fields: []chain.Data{chain.Raw([]byte("forged"))}}

	byBob, err := SignTx(c.GenesisHash(), d.bob, 0, call)
	must(t, "sign", err)
	byBob.Hotkey = d.charlie.Public() // claims to be Charlie
	_, err = c.Submit(byBob)
	wantErr(t, "signed by another key", err, chain.ErrBadSignature)

	good, err := SignTx(c.GenesisHash(), d.charlie, 0, call)
	must(t, "sign", err)
	tampered := good
	tampered.Call = append([]byte(nil), good.Call...)
	tampered.Call[len(tampered.Call)-1] ^= 1
	_, err = c.Submit(tampered)
	wantErr(t, "tampered call", err, chain.ErrBadSignature)

	other, err := SignTx(GenesisHash("another chain"), d.charlie, 0, call)
	must(t, "sign", err)
	_, err = c.Submit(other)
	wantErr(t, "signed for another chain", err, chain.ErrBadSignature)

	if _, err := c.Commitment(ctx(t), d.charlie.Public()); !errors.Is(err, chain.ErrNotFound) {
		t.Fatalf("a forged transaction left a commitment: %v", err)
	}
	if _, err := c.Submit(good); err != nil {
		t.Fatal(err)
	}
	_, err = c.Submit(good)
	wantErr(t, "replay", err, chain.ErrStaleNonce)
	future, _ := SignTx(c.GenesisHash(), d.charlie, 5, call)
	_, err = c.Submit(future)
	wantErr(t, "future nonce", err, chain.ErrStaleNonce)
	if n := c.Nonce(d.charlie.Public()); n != 1 {
		t.Fatalf("nonce %d after one accepted transaction", n)
	}
}

func TestPersistence(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	var calls atomic.Int32
	c, err := New(Options{Dir: dir, Genesis: &d.genesis, Manual: true, Consensus: stakeConsensus(&calls)})
	must(t, "new", err)
	cx := ctx(t)
	must(t, "commit", c.SetCommitment(cx, d.charlie, []chain.Data{chain.Raw([]byte("kept"))}))
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{9}}, Salt: []uint16{4}}
	must(t, "commit weights", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), 1, r)))
	must(t, "advance", c.Advance(25))
	eve := hotkey(t, "//Eve")
	_, err = c.Register(eve.Public(), 1, false)
	must(t, "register", err)

	if _, err := New(Options{Dir: dir, Manual: true}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open of a held dir: %v", err)
	}
	before, _ := c.Metagraph(cx)
	head, _ := c.Head(cx)
	must(t, "close", c.Close())
	if err := c.SetCommitment(cx, d.charlie, nil); err == nil {
		t.Fatal("a closed chain took a write")
	}

	// No genesis given: the directory's is used.
	c2, err := New(Options{Dir: dir, Manual: true, Consensus: stakeConsensus(&calls)})
	must(t, "reopen", err)
	defer c2.Close()
	head2, _ := c2.Head(cx)
	after, _ := c2.Metagraph(cx)
	if head2 != head || len(after.Neurons) != 5 || after.Epoch != before.Epoch || after.Neurons[2].Incentive != before.Neurons[2].Incentive {
		t.Fatalf("after restart: head %+v (was %+v), metagraph %+v", head2, head, after)
	}
	got, err := c2.Commitment(cx, d.charlie.Public())
	if err != nil || string(got.Fields[0].Bytes) != "kept" {
		t.Fatalf("commitment after restart: %+v %v", got, err)
	}
	if n := c2.Nonce(d.charlie.Public()); n != 1 {
		t.Fatalf("nonce after restart %d", n)
	}
	// The pending commit survived too: in epoch 2 it has expired.
	wantErr(t, "reveal after restart", c2.RevealWeights(cx, d.alice, r), chain.ErrRevealExpired)
	must(t, "advance after restart", c2.Advance(5))
	if m, _ := c2.Metagraph(cx); m.Epoch != 3 {
		t.Fatalf("epoch after restart %d", m.Epoch)
	}

	other := d.genesis
	other.Seed = "different"
	c2.Close()
	if _, err := New(Options{Dir: dir, Genesis: &other, Manual: true}); err == nil || !strings.Contains(err.Error(), "another genesis") {
		t.Fatalf("open with another genesis: %v", err)
	}

	// A snapshot whose head hash does not follow from the seed is refused.
	path := filepath.Join(dir, stateFile)
	data, _ := os.ReadFile(path)
	data = []byte(strings.Replace(string(data), `"head": 30`, `"head": 29`, 1))
	must(t, "write", os.WriteFile(path, data, 0o600))
	if _, err := New(Options{Dir: dir, Manual: true}); err == nil || !strings.Contains(err.Error(), "does not follow") {
		t.Fatalf("tampered snapshot: %v", err)
	}
}

// Blocks come by themselves at the configured block time and an epoch
// runs every tempo.
func TestBlockProduction(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	g := d.genesis
	g.Tempo = 3
	var calls atomic.Int32
	c, err := New(Options{Genesis: &g, Consensus: stakeConsensus(&calls)})
	must(t, "new", err)
	defer c.Close()
	start := time.Now()
	must(t, "wait", c.WaitFor(ctx(t), 7))
	if el := time.Since(start); el < 600*time.Millisecond {
		t.Fatalf("7 blocks of 100ms in %s", el)
	}
	m, _ := c.Metagraph(ctx(t))
	if m.Epoch < 2 || calls.Load() < 2 || m.EpochBlock%3 != 0 {
		t.Fatalf("epoch %d at %d after %d runs", m.Epoch, m.EpochBlock, calls.Load())
	}
}

// Close may be called twice at once (two calls could both close the stop
// channel); both return, a waiter is released with the closed chain's
// error, and the directory is free for the next process.
func TestCloseConcurrently(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	c, err := New(Options{Dir: dir, Genesis: &d.genesis})
	must(t, "new", err)
	waited := make(chan error, 1)
	go func() { waited <- c.WaitFor(ctx(t), 1<<40) }()
	closed := make(chan error, 2)
	for range 2 {
		go func() { closed <- c.Close() }()
	}
	for range 2 {
		must(t, "close", <-closed)
	}
	if err := <-waited; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("WaitFor on a closed chain: %v", err)
	}
	must(t, "close again", c.Close())
	c2, err := New(Options{Dir: dir, Manual: true})
	must(t, "reopen", err)
	must(t, "close the reopened chain", c2.Close())
}

func TestNoConsensusLinked(t *testing.T) {
	t.Parallel()
	if DefaultConsensus != nil {
		t.Skip("a default consensus is linked in")
	}
	c := newManual(t, newDevnet(t).genesis, "", nil)
	must(t, "advance", c.Advance(10))
	if m, _ := c.Metagraph(ctx(t)); m.Epoch != 1 || !strings.Contains(c.EpochError(), "no consensus") {
		t.Fatalf("epoch %d, error %q", m.Epoch, c.EpochError())
	}
}

func TestGenesis(t *testing.T) {
	t.Parallel()
	g, err := ParseGenesis([]byte(`{"seed":"s","tempo":5,"block_time":"250ms","neurons":[{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY","stake":9,"validator":true}]}`))
	must(t, "parse", err)
	if g.Tempo != 5 || time.Duration(g.BlockTime) != 250*time.Millisecond || !g.CommitReveal || g.MaxSpace != 3100 || g.Netuid != 1 || len(g.Neurons) != 1 || !g.Neurons[0].Validator {
		t.Fatalf("genesis %+v", g)
	}
	for _, bad := range []string{
		`{"tempo":0}`, `{"block_time":"0s"}`, `{"unknown":1}`, `{"block_time":"soon"}`, `{} {}`,
		`{"neurons":[{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"},{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"}]}`,
	} {
		if _, err := ParseGenesis([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The default consensus is Yuma (package yuma). Alice (3/4 of the stake)
// splits her weight between Charlie and Dave, Bob (1/4) gives all to
// Charlie. Consensus, the stake-weighted median, is 1/2 for both miners,
// so clipping leaves Alice's row whole (vtrust 1) and halves Bob's (vtrust
// 1/2); incentive is 1/2 : 3/8 before normalization, i.e. 4/7 and 3/7.
func TestYumaEpoch(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	g := d.genesis
	g.CommitReveal = false
	c := newManual(t, g, "", nil) // nil: DefaultConsensus
	cx := ctx(t)
	must(t, "advance", c.Advance(1))
	must(t, "alice", c.SetWeights(cx, d.alice, chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{1, 1}}))
	must(t, "bob", c.SetWeights(cx, d.bob, chain.Weights{UIDs: []uint16{2}, Values: []uint16{7}}))
	must(t, "advance", c.Advance(9))
	if e := c.EpochError(); e != "" {
		t.Fatalf("epoch error: %s", e)
	}
	m, _ := c.Metagraph(cx)
	near := func(got uint16, want float64) bool {
		return float64(got) >= want*65535-3 && float64(got) <= want*65535+3
	}
	n := m.Neurons
	if m.Epoch != 1 || !near(n[0].ValidatorTrust, 1) || !near(n[1].ValidatorTrust, 0.5) || !near(n[2].Incentive, 4.0/7) || !near(n[3].Incentive, 3.0/7) {
		t.Fatalf("epoch %d: vtrust %d %d, incentive %d %d", m.Epoch, n[0].ValidatorTrust, n[1].ValidatorTrust, n[2].Incentive, n[3].Incentive)
	}
	if !near(n[2].Consensus, 0.5) || n[0].Dividends == 0 || n[0].Dividends <= n[1].Dividends {
		t.Fatalf("consensus %d, dividends %d %d", n[2].Consensus, n[0].Dividends, n[1].Dividends)
	}
	// Another tempo, another epoch: bonds carry over and results persist.
	must(t, "advance", c.Advance(10))
	if m, _ := c.Metagraph(cx); m.Epoch != 2 || m.EpochBlock != 20 || m.Neurons[2].Incentive == 0 {
		t.Fatalf("second epoch %+v", m)
	}
}
