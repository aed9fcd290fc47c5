package validator_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/validator"
)

// TestFailingEndpointIsWarnedOf: a miner whose every call fails loses its
// challenges in silence no more: the validator warns of it, naming the
// miner and the failure, once a minute however many of a duel's episodes
// fail; and a node's log (LogProgress) says when each duel starts and
// ends.
func TestFailingEndpointIsWarnedOf(t *testing.T) {
	t.Parallel()
	n := newNet(t,
		minerSpec{name: "Champ", strategy: "perfect"},
		minerSpec{name: "Broken", strategy: "flaky:1"},
	)
	s := openStore(t, t.TempDir())
	defer s.Close()
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	cfg.Client = inference.New(inference.Options{Timeout: time.Second, MaxAttempts: 1, PerMiner: 16, Overall: 128})
	cfg.Logger, cfg.Progress = log, validator.LogProgress(log)
	v := newValidator(t, cfg)
	defer v.Close()

	n.autoAdvance(t, 5*time.Millisecond)
	runDuels(t, testCtx(t, 40*time.Second), v, 1)
	out := logs.String()
	broken := n.miners["Broken"].Hotkey.String()
	if got := strings.Count(out, "miner calls failing"); got != 1 {
		t.Fatalf("%d warnings of the failing miner in one duel, want 1:\n%s", got, out)
	}
	for _, want := range []string{"miner=" + broken, "http_status=500", "kind=", "failed_episodes=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the warning does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "duel started") || !strings.Contains(out, "duel decided") || !strings.Contains(out, "winner=champion") {
		t.Errorf("the log does not show the duel started and decided for the champion:\n%s", out)
	}
	// The one warning stood for every failed episode of the duel.
	episodes := 0
	for _, err := range s.TranscriptsByMiner(n.miners["Broken"].Hotkey) {
		if err != nil {
			t.Fatal(err)
		}
		episodes++
	}
	if episodes < 2 {
		t.Fatalf("the failing miner played %d episodes; the test needs several", episodes)
	}
}
