package validator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/validator"
)

// A miner serving the champion's model (same model hash, committed later)
// is not dueled: RunDuel refuses it and Run passes it over for the next
// contender in commitment order.
func TestCopyOfChampionRefused(t *testing.T) {
	t.Parallel()
	st, _ := miner.ParseStrategy("perfect")
	champHash := miner.DefaultModelHash(st, 1)
	n := newNet(t,
		minerSpec{name: "Champ", strategy: "perfect", seed: 1},
		minerSpec{name: "Copy", strategy: "noisy:0.9", seed: 2, hash: champHash},
		minerSpec{name: "Other", strategy: "noisy:0.6", seed: 3},
	)
	if n.miners["Copy"].CopyOf == nil {
		t.Fatalf("the chain does not mark the copy: %+v", n.miners["Copy"])
	}
	s := openStore(t, t.TempDir())
	defer s.Close()
	rec := &recorder{}
	cfg := n.config(s, rec)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	v := newValidator(t, cfg)
	defer v.Close()

	_, err := v.RunDuel(testCtx(t, 10*time.Second), n.miners["Champ"], n.miners["Copy"])
	if !errors.Is(err, validator.ErrCopy) {
		t.Fatalf("duel of a copy: %v, want ErrCopy", err)
	}
	// The copy's hash is refused even without the chain's mark.
	unmarked := n.miners["Copy"]
	unmarked.CopyOf = nil
	if _, err := v.RunDuel(testCtx(t, 10*time.Second), n.miners["Champ"], unmarked); !errors.Is(err, validator.ErrCopy) {
		t.Fatalf("duel of an unmarked copy: %v, want ErrCopy", err)
	}
	if rec.count(validator.StageStart) != 0 || len(v.History().Entries) != 0 {
		t.Fatal("a refused duel started")
	}

	ctx, cancel := context.WithCancel(testCtx(t, 30*time.Second))
	defer cancel()
	n.autoAdvance(t, 5*time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- v.Run(ctx) }()
	for len(v.History().Entries) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	// With Other dueled, only the copy is left: Run must stay idle.
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	h := v.History()
	if len(h.Entries) != 1 || h.Entries[0].Contender.Hotkey != n.miners["Other"].Hotkey || h.Entries[0].Champion.Hotkey != n.miners["Champ"].Hotkey {
		t.Fatalf("Run dueled %+v, want only Other against Champ", h.Entries)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}
