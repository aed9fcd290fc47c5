package epoch

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
)

// TestDethroneSticksUnderCommitReveal: a dethrone that every validator
// agreed on in epoch 3 holds in the epochs after, when no duel is run.
// With commit-reveal (reveal period 1) the weights in effect at epoch 4's
// first block are those revealed in epoch 3, i.e. committed in epoch 2,
// naming epoch 2's winner: taken for epoch 3's, the champion override
// (spec/vtrust.md) would start epoch 4 from the old champion, undo the
// dethrone, and flip back and forth from then on.
func TestDethroneSticksUnderCommitReveal(t *testing.T) {
	for _, cr := range []bool{false, true} {
		name := "set_weights"
		if cr {
			name = "commit_reveal"
		}
		t.Run(name, func(t *testing.T) {
			w := newModelWorld(t, cr, 23, []uint64{100, 100, 100, 100})
			dethroneSticks(t, w, func(uint64, int, Report) {})
		})
	}
}

// dethroneSticks runs epochs 1 to 6 of w, whose contender wins the duel
// anchored in epoch 3's window, checks every validator's champion after
// each, and hands each report to check.
func dethroneSticks(t *testing.T, w *modelWorld, check func(k uint64, validator int, rep Report)) {
	t.Helper()
	ds := w.drivers(t, w.champ)
	want := map[uint64]string{1: "champion", 2: "champion", 3: "contender", 4: "contender", 5: "contender", 6: "contender"}
	for k := uint64(1); k <= 6; k++ {
		for i, rep := range w.stepAll(t, ds, k) {
			got := "champion"
			if rep.Output.Champion.Hotkey == w.con.Hotkey {
				got = "contender"
			}
			if got != want[k] {
				t.Errorf("validator %d: epoch %d ends with the %s, want the %s", i, k, got, want[k])
			}
			check(k, i, rep)
		}
	}
}

// TestRevealsUnderSubtensorEpochs: on a chain that numbers its epochs as
// subtensor does (offset by the netuid, tempo + 1 blocks), every commit is
// revealed in the one chain epoch that takes it, and the dethrone sticks.
// Numbered by tempo from block 0 instead, the driver reveals in the wrong
// epoch, and the chain refuses.
func TestRevealsUnderSubtensorEpochs(t *testing.T) {
	w := newModelWorld(t, true, 23, []uint64{100, 100, 100, 100}, func(g *local.Genesis) {
		g.Netuid, g.SubtensorEpochs = 3, true
	})
	dethroneSticks(t, w, func(k uint64, i int, rep Report) {
		// Epoch k reveals epoch k−1's commit (reveal period 1).
		if k > 1 && rep.Revealed != 1 {
			t.Errorf("validator %d: epoch %d revealed %d commits, want 1", i, k, rep.Revealed)
		}
	})
	ctx := context.Background()
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set := map[uint16]bool{}
	for _, r := range rows {
		set[r.UID] = len(r.UIDs) == 1
	}
	for i := range w.keys { // the genesis registers the validators first
		if !set[uint16(i)] {
			t.Errorf("validator %d has no weights in effect on the chain", i)
		}
	}
}

// TestLateStepRevealsInTheCommitsEpoch: with the default settle of 1
// block (tempo 10), Loop runs epoch k with the head anywhere in
// [k·T+1, (k+1)·T+1), so epoch 1 may run at head 20, already chain epoch
// 2. Its commit is then in chain epoch 2 and due in chain epoch 3, not in
// the driver's epoch 1 + RevealPeriod: revealing it at epoch 2 would be
// refused as too early. A reveal the chain refuses is dropped without
// failing the epoch.
func TestLateStepRevealsInTheCommitsEpoch(t *testing.T) {
	w := newModelWorld(t, true, 3, []uint64{100, 100, 100, 100})
	ctx := context.Background()
	d := w.drivers(t, w.champ)[0]
	advanceTo := func(n uint64) {
		t.Helper()
		head, _ := w.chain.Head(ctx)
		if err := w.chain.Advance(int(n - head.Number)); err != nil {
			t.Fatal(err)
		}
	}
	advanceTo(20) // (20 - settle 1) / 10 = 1: Loop runs epoch 1 here
	if rep, err := d.Step(ctx, 1); err != nil || !rep.Committed {
		t.Fatalf("epoch 1: committed %v, %v", rep.Committed, err)
	}
	advanceTo(21) // Loop runs epoch 2
	if rep, err := d.Step(ctx, 2); err != nil || !rep.Committed || rep.Revealed != 0 {
		t.Fatalf("epoch 2: committed %v, revealed %d, %v; want a commit and no reveal (both commits are due in chain epoch 3)", rep.Committed, rep.Revealed, err)
	}
	// A reveal the chain refuses (no commit hashes to it) is due too.
	d.mu.Lock()
	d.pending = append([]pendingReveal{{epoch: 2, from: 3, to: 3, reveal: chain.Reveal{
		Weights: chain.Weights{UIDs: []uint16{0}, Values: []uint16{chain.MaxWeightValue}}, Salt: []uint16{1},
	}}}, d.pending...)
	d.mu.Unlock()
	advanceTo(31) // Loop runs epoch 3
	rep, err := d.Step(ctx, 3)
	if err != nil || !rep.Committed {
		t.Fatalf("epoch 3: committed %v, %v; a failed reveal must not fail the epoch", rep.Committed, err)
	}
	if rep.Revealed != 2 {
		t.Errorf("epoch 3 revealed %d commits, want those of epochs 1 and 2", rep.Revealed)
	}
	if len(rep.Unrevealed) != 1 || rep.Unrevealed[0] != 2 {
		t.Errorf("epoch 3 reports %v dropped unrevealed, want the refused commit of epoch 2", rep.Unrevealed)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("weight rows after epoch 3: %+v, want the validator's", rows)
	}
	d.mu.Lock()
	left := len(d.pending)
	d.mu.Unlock()
	if left != 1 {
		t.Errorf("%d reveals pending after epoch 3, want only epoch 3's (the refused one dropped)", left)
	}
}
