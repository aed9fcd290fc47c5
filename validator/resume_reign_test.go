package validator_test

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/validator"
)

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
// when the old champion came back with its model meanwhile. (Before,
// RunDuel refused the pair with ErrNotChampion and Run returned that, on
// every restart, since the unfinished duel is found again each time.)
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
