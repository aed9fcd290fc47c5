package epoch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/duel"
)

// TestCommitRevealSurvivesRestart: the commits waiting for their reveal
// epoch lived in memory only, so a validator restarted between a commit
// and its reveal never revealed it and set no weights for that epoch. They
// are kept in the state file, salts included.
func TestCommitRevealSurvivesRestart(t *testing.T) {
	w := newWorld(t, true)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), StateFile)
	cfg := Config{Chain: w.chain, Store: w.store, Key: w.keys[0], Champion: duel.Side{Hotkey: w.champ.Public()}, StateFile: path}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	rep, err := d.Step(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Committed {
		t.Fatal("epoch 1 committed nothing")
	}
	st, ok, err := loadState(path)
	if err != nil || !ok || len(st.Reveals) != 1 {
		t.Fatalf("state after the commit: %+v, %v, %v; want one reveal kept", st, ok, err)
	}

	// A new process: only the state file carries the salt over.
	cfg.Champion = duel.Side{}
	d2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	if next, err := d2.resume(ctx, 2); err != nil || next != 2 {
		t.Fatalf("resume: next %d, %v; want 2", next, err)
	}
	rep, err = d2.Step(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Revealed != 1 {
		t.Fatalf("after a restart epoch 2 revealed %d commits, want 1", rep.Revealed)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0].UIDs) != 1 || rows[0].UIDs[0] != w.uid(t, w.con.Public()) {
		t.Fatalf("weights after the reveal: %+v", rows)
	}
	if st, _, _ := loadState(path); len(st.Reveals) != 1 || st.Reveals[0].Epoch != 2 {
		t.Fatalf("state after epoch 2: reveals %+v; want only epoch 2's commit", st.Reveals)
	}
}
