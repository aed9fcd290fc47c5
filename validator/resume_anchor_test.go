package validator_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/validator"
)

// In a node the loop shares its appender with other writers (the epoch
// driver), whose requests anchor blocks at newer chain blocks; a block
// never goes back to an older anchor, so once one of them is written no
// block of the duel carries its start. The transcripts still record the
// start, as their seed's anchor: a validator stopped then resumes the duel
// from it, with the same duel ID, rather than leaving it unfinished and
// dueling the pair again from a new start.
func TestResumeWhenAnotherWriterMovedTheAnchor(t *testing.T) {
	const killAfter = 20
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.5", seed: 1}, minerSpec{name: "Cont", strategy: "noisy:0.5", seed: 2})
	dir := t.TempDir()
	rule := duel.Rule{ZMilli: 1960, Looks: []uint32{16, 32, 64}, MaxChallenges: 300}
	s := openStore(t, dir)
	app, err := s.NewAppender(n.key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := n.config(s, nil)
	cfg.Envs, cfg.Rule, cfg.Appender = fastEnvs(t), rule, app
	ctx, kill := context.WithCancel(testCtx(t, 60*time.Second))
	var outcomes atomic.Int32
	var killedID record.DuelID
	cfg.Progress = func(p validator.Progress) {
		switch p.Stage {
		case validator.StageStart:
			// The other writer anchors the chain one block past the
			// duel's start before any of the duel's pairs is appended.
			killedID = p.Duel
			ahead := record.Anchor{Number: p.Start.Number + 1, Hash: sha256.Sum256([]byte("the epoch driver's head"))}
			if _, err := app.Append(context.Background(), ahead, nil, nil); err != nil {
				t.Error(err)
			}
		case validator.StageOutcome:
			if outcomes.Add(1) == killAfter {
				kill()
			}
		}
	}
	v := newValidator(t, cfg)
	n.advance(t)
	if _, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Cont"]); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed duel: %v", err)
	}
	v.Close()
	app.Close()
	head, err := s.Head(n.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	stored := head.Checkpoint.Size
	s.Close()
	if stored < 2*killAfter {
		t.Fatalf("the killed duel left %d transcripts, want at least %d", stored, 2*killAfter)
	}

	n.advance(t)
	s = openStore(t, dir)
	defer s.Close()
	rec := &recorder{}
	cfg = n.config(s, rec)
	cfg.Envs, cfg.Rule = fastEnvs(t), rule
	v = newValidator(t, cfg)
	defer v.Close()
	runDuels(t, testCtx(t, 60*time.Second), v, 1)
	h := v.History()
	if got := h.Entries[0].ID(); got != killedID {
		t.Fatalf("the duel recorded after the restart is %s, the killed one %s: it was not resumed", got, killedID)
	}
	var resumed int
	for _, p := range rec.events {
		if p.Stage == validator.StageStart {
			resumed = p.Resumed
			break
		}
	}
	if 2*uint64(resumed) != stored {
		t.Fatalf("resumed %d answered challenges, the ledger held %d transcripts", resumed, stored)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}
