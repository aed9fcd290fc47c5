package validator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/validator"
)

// A perfect contender dethrones a noisy champion, under the network's rule
// and envs, through Run: the first champion is the earliest commitment.
func TestPerfectDethronesNoisy(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Noisy", strategy: "noisy:0.6"}, minerSpec{name: "Perfect", strategy: "perfect"})
	dir := t.TempDir()
	s := openStore(t, dir)
	rec := &recorder{}
	cfg := n.config(s, rec)
	v := newValidator(t, cfg)
	defer v.Close()

	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	defer cancel()
	n.autoAdvance(t, 5*time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for len(v.History().Entries) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before any duel", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	h := v.History()
	e := h.Entries[0]
	if e.Champion.Hotkey != n.miners["Noisy"].Hotkey || e.Contender.Hotkey != n.miners["Perfect"].Hotkey {
		t.Fatalf("first duel: %s against %s", e.Contender.Hotkey.Short(), e.Champion.Hotkey.Short())
	}
	if e.Winner != "contender" || !e.NewReign || e.RatioPPM != duel.DefaultFrontierParams().Floor() {
		t.Fatalf("first duel: %+v", e)
	}
	wantSet := duel.DefaultFrontierParams().NextRatio(e.GeoMeanPPM)
	if h.Frontier.Champion.Hotkey != n.miners["Perfect"].Hotkey || h.Frontier.SetPPM != wantSet || h.Frontier.SetAt != e.Start.Number {
		t.Fatalf("frontier after the dethrone: %+v, want perfect at %d set at %d", h.Frontier, wantSet, e.Start.Number)
	}
	if rec.count(validator.StageDecided) < 1 || rec.count(validator.StageOutcome) < int(e.Challenges) {
		t.Fatalf("progress: %d decided, %d outcomes for %d challenges", rec.count(validator.StageDecided), rec.count(validator.StageOutcome), e.Challenges)
	}
	// OnBlock saw every block of the validator, once, in height order, and
	// each was durable: the store has it.
	head, err := s.Head(n.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(rec.blocks)) != head.Block.Height+1 {
		t.Fatalf("OnBlock called for %d blocks, the chain has %d", len(rec.blocks), head.Block.Height+1)
	}
	for i, rc := range rec.blocks {
		b, err := s.BlockAt(n.key.Public(), uint64(i))
		if err != nil || rc.Block.Height != uint64(i) || !rc.Block.CID.Equals(b.CID) || rc.Checkpoint != b.Checkpoint {
			t.Fatalf("OnBlock call %d: %v, store: %v", i, rc.Block, err)
		}
	}
	v.Close()
	// The store reopens (its heads, logs and Merkle nodes agree).
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir)
	defer s.Close()
	if got := audit(t, s, n.key.Public(), h); got < 2*int(e.Challenges) {
		t.Fatalf("%d transcripts for %d challenges", got, e.Challenges)
	}
	t.Logf("duel of %d challenges in %d blocks", e.Challenges, len(rec.blocks))
}

// A noisy contender does not dethrone a perfect champion.
func TestNoisyDoesNotDethronePerfect(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Perfect", strategy: "perfect"}, minerSpec{name: "Noisy", strategy: "noisy:0.6"})
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	v := newValidator(t, cfg)
	defer v.Close()
	n.advance(t)
	r, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Perfect"], n.miners["Noisy"])
	if err != nil {
		t.Fatal(err)
	}
	if r.Winner != "champion" || r.EnvsWon != 0 {
		t.Fatalf("noisy contender: %s", describe(r))
	}
	for _, e := range r.Envs {
		if e.Wins != 0 {
			t.Fatalf("env %s: a noisy contender won %d challenges against a perfect champion", e.Env, e.Wins)
		}
	}
	h := v.History()
	if h.Frontier.Champion.Hotkey != n.miners["Perfect"].Hotkey || h.Frontier.SetPPM != duel.DefaultFrontierParams().Floor() {
		t.Fatalf("frontier: %+v", h.Frontier)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}
