package epoch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

func TestStateFileRoundTripAndCorruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), StateFile)
	if _, ok, err := loadState(path); ok || err != nil {
		t.Fatalf("no file: ok %v, err %v", ok, err)
	}
	want := state{Epoch: 7, Champion: duel.Side{Hotkey: keys.PublicKey{9}, ModelHash: duel.HexBytes{1, 2}}}
	if err := saveState(path, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := loadState(path)
	if err != nil || !ok || got.Epoch != 7 || got.Champion.Hotkey != want.Champion.Hotkey || string(got.Champion.ModelHash) != string(want.Champion.ModelHash) {
		t.Fatalf("read back %+v, %v, %v", got, ok, err)
	}
	for _, bad := range []string{"{", `{"epoch":0}`, "garbage"} {
		os.WriteFile(path, []byte(bad), 0o600)
		if _, _, err := loadState(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("state %q: %v, want an error naming the file", bad, err)
		}
	}
}

// setTop has validator k put all its weight on uid.
func (w *world) setTop(t *testing.T, k *keys.Hotkey, uid uint16) {
	t.Helper()
	if err := w.chain.SetWeights(context.Background(), k, chain.Weights{UIDs: []uint16{uid}, Values: []uint16{65535}}); err != nil {
		t.Fatal(err)
	}
}

// TestChainWinnerFollowsStake: the winner read back from the chain is the
// uid the weight rows holding the most validator stake put first.
func TestChainWinnerFollowsStake(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	if _, ok, err := ChainWinner(ctx, w.chain); ok || err != nil {
		t.Fatalf("no weights yet: ok %v, err %v", ok, err)
	}
	champ, con := w.uid(t, w.champ.Public()), w.uid(t, w.con.Public())
	// One row of 250 of 550: the chain's winner, but no majority.
	w.setTop(t, w.keys[2], con)
	if s, ok, err := ChainWinner(ctx, w.chain); err != nil || !ok || s.Hotkey != w.con.Public() {
		t.Fatalf("one row: winner %s, %v, %v", s.Hotkey, ok, err)
	}
	if _, ok, err := ChainMajority(ctx, w.chain); ok || err != nil {
		t.Fatalf("250 of 550 stake is a majority: %v, %v", ok, err)
	}
	// stakes 100, 100, 250, 100: the champion has 300, the contender 250.
	w.setTop(t, w.keys[0], champ)
	w.setTop(t, w.keys[1], champ)
	w.setTop(t, w.keys[2], con)
	w.setTop(t, w.keys[3], champ)
	s, ok, err := ChainWinner(ctx, w.chain)
	if err != nil || !ok || s.Hotkey != w.champ.Public() {
		t.Fatalf("winner %s, %v, %v; want the champion (300 of 550 stake)", s.Hotkey, ok, err)
	}
	if m, ok, err := ChainMajority(ctx, w.chain); err != nil || !ok || m.Hotkey != w.champ.Public() {
		t.Fatalf("300 of 550: majority %s, %v, %v", m.Hotkey, ok, err)
	}
	w.setTop(t, w.keys[3], con)
	s, ok, err = ChainWinner(ctx, w.chain)
	if err != nil || !ok || s.Hotkey != w.con.Public() {
		t.Fatalf("winner %s, %v, %v; want the contender (350 of 550 stake)", s.Hotkey, ok, err)
	}
	if len(s.ModelHash) == 0 {
		t.Fatal("the winner's side has no model identity")
	}
}

// TestResume: a driver with a state file goes on after its last epoch
// with its champion; without one on a chain with no weights it starts
// from epoch 1, at most maxCatchUp back; with a champion configured it
// starts at the next epoch.
func TestResume(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), StateFile)
	d, err := New(Config{Chain: w.chain, Store: w.store, Key: w.keys[0], StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if next, err := d.resume(ctx, 9); err != nil || next != 1 {
		t.Fatalf("new network: next %d, %v; want 1", next, err)
	}
	if next, err := d.resume(ctx, 100); err != nil || next != 100-maxCatchUp {
		t.Fatalf("far behind: next %d, %v; want %d", next, err, 100-maxCatchUp)
	}
	d.save(5, duel.Side{Hotkey: w.con.Public()})
	d2, err := New(Config{Chain: w.chain, Store: w.store, Key: w.keys[0], StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if next, err := d2.resume(ctx, 9); err != nil || next != 6 || d2.Champion().Hotkey != w.con.Public() {
		t.Fatalf("from state: next %d, champion %s, %v; want 6 and the contender", next, d2.Champion().Hotkey, err)
	}
	d3, err := New(Config{Chain: w.chain, Store: w.store, Key: w.keys[0], Champion: duel.Side{Hotkey: w.champ.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if next, err := d3.resume(ctx, 9); err != nil || next != 10 {
		t.Fatalf("configured champion: next %d, %v; want 10", next, err)
	}
}
