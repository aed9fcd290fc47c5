package validator_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
	"github.com/affine-ledger/ledger/validator"
)

// fixedMiner answers every chat completion with content and counts the
// requests it got.
type fixedMiner struct {
	content  string
	requests atomic.Int64
}

func (m *fixedMiner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	body, _ := json.Marshal(map[string]any{
		"model":   "fixed",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": m.content}}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// fixedNet is a local chain with a perfect reference miner "Champ"
// committed first (the first champion) and a miner "Fixed" that answers
// every request with content.
func fixedNet(t *testing.T, content string) (*testNet, *fixedMiner) {
	t.Helper()
	n := chainWith(t, []string{"Champ", "Fixed"})
	_, champEP := minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}, Model: "test/Champ", Solvers: miner.EnvSolvers()})
	fm := &fixedMiner{content: content}
	hs := httptest.NewServer(fm)
	t.Cleanup(hs.Close)
	eps := map[string]inference.Endpoint{"Champ": champEP, "Fixed": {BaseURL: hs.URL + "/v1"}}
	for _, name := range []string{"Champ", "Fixed"} {
		hash := sha256.Sum256([]byte(name))
		mc := chain.MinerCommitment{Model: "test/" + name, Revision: "r1", Endpoint: eps[name].BaseURL, ModelHash: hash[:]}
		fields, err := mc.Fields()
		if err != nil {
			t.Fatalf("miner %s: %v", name, err)
		}
		if err := n.chain.SetCommitment(context.Background(), n.keys[name], fields); err != nil {
			t.Fatalf("miner %s: commit: %v", name, err)
		}
		n.advance(t)
	}
	q, err := validator.Queue(context.Background(), n.chain)
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
	return n, fm
}

// A sat answer naming an out-of-range variable of 5,000 digits scores 0
// with the reason "variable 999...9 out of range" (spec/envs/sat.md quotes
// the digits "of any length"), a reason over the transcript's 4,096-byte
// limit. The ledger refuses the pair, the validator passes its counter
// over and draws the next, which the miner answers the same way: the
// contender is never scored and the duel never ends. The duel here should
// be lost by the contender at the first look (8 losses against a perfect
// champion); the test gives up once the miner was asked 400 times.
func TestOverlongReasonDoesNotStallTheDuel(t *testing.T) {
	t.Parallel()
	n, fm := fixedNet(t, "<answer>x"+strings.Repeat("9", 5000)+"=1</answer>")
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	sat, err := registry.Latest("sat")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Envs = []envs.Factory{sat}
	cfg.Rule = shortRule()
	v := newValidator(t, cfg)
	defer v.Close()

	ctx, cancel := context.WithCancel(testCtx(t, 120*time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Fixed"])
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("RunDuel: %v", err)
			}
			if h := v.History(); len(h.Entries) != 1 || h.Entries[0].Winner != "champion" {
				t.Fatalf("history %+v", h.Entries)
			}
			return
		default:
		}
		if fm.requests.Load() > 400 {
			cancel()
			<-done
			t.Fatalf("the miner was asked %d times and the duel is not decided (%d transcripts stored): every pair is refused and passed over",
				fm.requests.Load(), countTranscripts(t, s, n.miners["Fixed"]))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countTranscripts counts the store's transcripts of m.
func countTranscripts(t *testing.T, s *ledger.Store, m chain.Contender) int {
	t.Helper()
	return countOf(t, s, m.Hotkey)
}

func countOf(t *testing.T, s *ledger.Store, hk keys.PublicKey) int {
	t.Helper()
	n := 0
	for _, err := range s.TranscriptsByMiner(hk) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// recommit replaces m's commitment on chain with mc.
func recommit(t *testing.T, n *testNet, name string, mc chain.MinerCommitment) {
	t.Helper()
	fields, err := mc.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.chain.SetCommitment(context.Background(), n.keys[name], fields); err != nil {
		t.Fatal(err)
	}
	n.advance(t)
}

// A validator stopped during the first duel of a new reign (its champion
// had left) resumes that duel after a restart, "with the same start, duel
// ID, champion, contender and ratio" (spec/validator.md, "Resuming"), even
// when the old champion came back with its model meanwhile. Run instead
// hands the unfinished pair to RunDuel, whose frontierFor sees the old
// champion committed again and refuses with ErrNotChampion; Run treats
// that as fatal and returns it, on every restart, since the unfinished
// duel is found again each time.
func TestResumeNewReignAfterOldChampionReturns(t *testing.T) {
	t.Parallel()
	n := newNet(t,
		minerSpec{name: "X", strategy: "perfect", seed: 1},
		minerSpec{name: "W", strategy: "random", seed: 2},
		minerSpec{name: "Y", strategy: "perfect", seed: 3},
	)
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	ctx := testCtx(t, 60*time.Second)
	n.autoAdvance(t, 5*time.Millisecond)

	// X keeps its title against W: X is the champion of the history.
	v := newValidator(t, cfg)
	res, err := v.RunDuel(ctx, n.miners["X"], n.miners["W"])
	if err != nil || res.Winner != "champion" {
		t.Fatalf("X against W: %v %s", err, describe(res))
	}

	// X commits another model: vacancy. The first champion is now W, and
	// W against Y starts a new reign; the validator is stopped after the
	// first outcome.
	orig := n.miners["X"].Commitment
	other := orig
	other.ModelHash = bytes.Repeat([]byte{0xAB}, 32)
	recommit(t, n, "X", other)
	q, err := validator.Queue(ctx, n.chain)
	if err != nil {
		t.Fatal(err)
	}
	var w, y chain.Contender
	for _, c := range q {
		switch c.Hotkey {
		case n.keys["W"].Public():
			w = c
		case n.keys["Y"].Public():
			y = c
		}
	}
	kctx, kill := context.WithCancel(ctx)
	var outcomes atomic.Int32
	cfg.Progress = func(p validator.Progress) {
		if p.Stage == validator.StageOutcome && outcomes.Add(1) == 1 {
			kill()
		}
	}
	v.Close()
	v = newValidator(t, cfg)
	if _, err := v.RunDuel(kctx, w, y); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped duel: %v", err)
	}
	v.Close()

	// X commits its old model again while the validator is down; both
	// miners of the unfinished duel still hold their models.
	recommit(t, n, "X", orig)
	cfg.Progress = nil
	v = newValidator(t, cfg)
	defer v.Close()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- v.Run(rctx) }()
	for len(v.History().Entries) < 2 {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before resuming the duel of W and Y", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	e := v.History().Entries[1]
	if e.Champion.Hotkey != w.Hotkey || e.Contender.Hotkey != y.Hotkey || !e.NewReign {
		t.Fatalf("second duel %+v, want the resumed W against Y of a new reign", e)
	}
}
