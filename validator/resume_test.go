package validator_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/validator"
)

// A validator stopped mid-duel (its context cancelled, its store closed and
// reopened) resumes the duel from its ledger: the answered challenges are
// counted again without being asked again, none is drawn twice, and the
// record lists them with the ones answered after the restart.
func TestResumeAfterKill(t *testing.T) {
	const killAfter = 40
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.5", seed: 1}, minerSpec{name: "Cont", strategy: "noisy:0.5", seed: 2})
	dir := t.TempDir()
	s := openStore(t, dir)
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = duel.Rule{ZMilli: 1960, Looks: []uint32{16, 32, 64}, MaxChallenges: 300}
	ctx, kill := context.WithCancel(testCtx(t, 60*time.Second))
	var outcomes atomic.Int32
	cfg.Progress = func(p validator.Progress) {
		if p.Stage == validator.StageOutcome && outcomes.Add(1) == killAfter {
			kill()
		}
	}
	v := newValidator(t, cfg)
	n.advance(t)
	_, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Cont"])
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed duel: %v", err)
	}
	v.Close()
	head, err := s.Head(n.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	before := head.Checkpoint.Size
	var duelID record.DuelID
	for ref, err := range s.Leaves(n.key.Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		st, _ := s.Transcript(ref.CID)
		duelID = st.Duel
	}
	s.Close()
	if before < 2*killAfter || before%2 != 0 {
		t.Fatalf("the killed duel left %d transcripts, want pairs of at least the 60 counted", before)
	}

	// The chain moves on while the validator is down; the duel keeps its
	// start.
	n.advance(t)
	n.advance(t)
	s = openStore(t, dir)
	defer s.Close()
	rec := &recorder{}
	cfg = n.config(s, rec)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = duel.Rule{ZMilli: 1960, Looks: []uint32{16, 32, 64}, MaxChallenges: 300}
	v = newValidator(t, cfg)
	defer v.Close()
	ctx, cancel := context.WithCancel(testCtx(t, 60*time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for len(v.History().Entries) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before the duel ended", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	h := v.History()
	e := h.Entries[0]
	if e.ID() != duelID {
		t.Fatalf("the resumed duel is %s, the killed one %s", e.ID(), duelID)
	}
	var resumed int
	for _, p := range rec.events {
		if p.Stage == validator.StageStart {
			resumed = p.Resumed
			break
		}
	}
	if 2*uint64(resumed) != before {
		t.Fatalf("resumed %d answered challenges, the ledger held %d transcripts", resumed, before)
	}
	if e.Challenges < killAfter {
		t.Fatalf("the result lists %d challenges, fewer than the %d counted before the kill", e.Challenges, killAfter)
	}
	v.Close()
	// audit checks that every (challenge, miner) is used once and that the
	// result lists counters 0, 1, 2, ... of each env from the duel's start.
	total := audit(t, s, n.key.Public(), h)
	t.Logf("killed after %d outcomes with %d transcripts; resumed %d; the result lists %d challenges, the log holds %d transcripts", killAfter, before, resumed, e.Challenges, total)
}

// Within one process, a duel whose RunDuel was cancelled is resumed by the
// next RunDuel of the same two models.
func TestResumeInProcess(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.6"}, minerSpec{name: "Cont", strategy: "perfect"})
	s := openStore(t, t.TempDir())
	defer s.Close()
	rec := &recorder{}
	cfg := n.config(s, rec)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = duel.Rule{ZMilli: 1960, Looks: []uint32{32, 64}, MaxChallenges: 300}
	ctx, kill := context.WithCancel(testCtx(t, 30*time.Second))
	var outcomes atomic.Int32
	cfg.Progress = func(p validator.Progress) {
		rec.progress(p)
		if p.Stage == validator.StageOutcome && outcomes.Add(1) == 10 {
			kill()
		}
	}
	v := newValidator(t, cfg)
	defer v.Close()
	n.advance(t)
	if _, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Cont"]); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed duel: %v", err)
	}
	n.advance(t)
	r, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Champ"], n.miners["Cont"])
	if err != nil {
		t.Fatal(err)
	}
	var starts []validator.Progress
	for _, p := range rec.events {
		if p.Stage == validator.StageStart {
			starts = append(starts, p)
		}
	}
	if len(starts) != 2 || starts[1].Resumed < 10 || starts[1].Duel != starts[0].Duel || r.Start.Number != starts[0].Start.Number {
		t.Fatalf("starts %+v, result at block %d", starts, r.Start.Number)
	}
	if r.Winner != "contender" {
		t.Fatalf("perfect against noisy: %s", describe(r))
	}
	v.Close()
	audit(t, s, n.key.Public(), v.History())
}

// An unfinished duel whose contender has since committed another model is
// abandoned: its transcripts stay in the log without a result, and the new
// model is dueled from a later block.
func TestAbandonWhenContenderRecommits(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.6"}, minerSpec{name: "Cont", strategy: "perfect"})
	dir := t.TempDir()
	s := openStore(t, dir)
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	ctx, kill := context.WithCancel(testCtx(t, 30*time.Second))
	var outcomes atomic.Int32
	cfg.Progress = func(p validator.Progress) {
		if p.Stage == validator.StageOutcome && outcomes.Add(1) == 5 {
			kill()
		}
	}
	v := newValidator(t, cfg)
	n.advance(t)
	if _, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Cont"]); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed duel: %v", err)
	}
	v.Close()
	s.Close()

	old := n.miners["Cont"]
	mc := old.Commitment
	mc.Revision = "r2"
	mc.ModelHash = nil // identity by model and revision now
	fields, err := mc.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.chain.SetCommitment(context.Background(), n.keys["Cont"], fields); err != nil {
		t.Fatal(err)
	}
	n.advance(t)

	s = openStore(t, dir)
	defer s.Close()
	rec := &recorder{}
	cfg = n.config(s, rec)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	v = newValidator(t, cfg)
	defer v.Close()
	ctx, cancel := context.WithCancel(testCtx(t, 30*time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for len(v.History().Entries) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	if rec.count(validator.StageAbandoned) != 1 {
		t.Fatalf("%d duels abandoned, want 1", rec.count(validator.StageAbandoned))
	}
	h := v.History()
	e := h.Entries[0]
	id := mc.Identity()
	if e.Contender.Hotkey != old.Hotkey || string(e.Contender.ModelHash) != string(id[:]) || e.Winner != "contender" {
		t.Fatalf("the duel after the re-commit: %+v", e)
	}
	var abandoned validator.Progress
	for _, p := range rec.events {
		if p.Stage == validator.StageAbandoned {
			abandoned = p
		}
	}
	if e.Start.Number <= abandoned.Start.Number || e.ID() == abandoned.Duel {
		t.Fatalf("the new duel starts at %d, the abandoned one at %d", e.Start.Number, abandoned.Start.Number)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}
