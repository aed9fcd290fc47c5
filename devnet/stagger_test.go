package devnet_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/devnet"
)

// TestDevnetStaggered: three validators (stakes 1000, 950 and 900: any two
// hold more than half, none alone) reach the same duel three epochs apart
// (duels take seconds to tens of seconds), so that no epoch's window holds
// more than one of their votes, and a dethrone needs two. Counted only in
// its own epoch (spec/vtrust.md version 1), no vote ever had the majority
// and the first champion kept the weights for good; with votes standing
// for 24 epochs the perfect solver is crowned by an epoch in which an
// earlier vote stands beside that epoch's own.
func TestDevnetStaggered(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network for tens of seconds")
	}
	cfg := devnet.Config{Dir: filepath.Join(t.TempDir(), "net"), Validators: 3, Miners: 2, Duration: 100 * time.Second}
	if raceDetector {
		cfg.BlockTime, cfg.Tempo, cfg.Duration = time.Second, 16, 240*time.Second
	}
	blockTime, tempo := cfg.BlockTime, cfg.Tempo
	if blockTime == 0 {
		blockTime, tempo = 250*time.Millisecond, 24
	}
	cfg.Stagger = 3 * time.Duration(tempo) * blockTime
	var mu sync.Mutex
	var crowning []int // standing votes behind each epoch's dethrone
	maxVotes := 0      // the most votes of one epoch's window on one pair
	cfg.Events = func(e devnet.Event) {
		if e.Kind != devnet.KindEpoch || e.Epoch == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		out := e.Epoch.Output
		for _, d := range out.Duels {
			maxVotes = max(maxVotes, d.Votes-d.Standing)
		}
		for _, c := range out.Changes {
			crowning = append(crowning, out.Duels[c.Duel].Standing)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	sum, err := devnet.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("ran %.1f s; standing votes behind each dethrone %v; at most %d votes of one window on a pair", sum.Seconds, crowning, maxVotes)
	if maxVotes > 1 {
		t.Fatalf("an epoch's window held %d votes on one pair: the stagger did not keep the validators apart, and the test shows nothing", maxVotes)
	}
	if !sum.Goal || sum.Champion == nil || sum.Champion.Role != devnet.RoleStrong {
		t.Fatalf("goal %v in %.0f s, champion %+v: the staggered votes never crowned the perfect solver", sum.Goal, sum.Seconds, sum.Champion)
	}
	for _, n := range crowning {
		if n == 0 {
			t.Fatalf("a dethrone with no standing vote behind it (%v)", crowning)
		}
	}
}
