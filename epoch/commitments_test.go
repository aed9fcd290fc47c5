package epoch

import (
	"context"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

func TestCheckCommitments(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	for _, d := range w.drivers(t) {
		if _, err := d.Step(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	checks, err := CheckCommitments(ctx, w.chain, w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 4 {
		t.Fatalf("%d commitments checked, want 4", len(checks))
	}
	for _, c := range checks {
		if !c.OK {
			t.Errorf("honest commitment of %s flagged: %s", c.Validator, c.Reason)
		}
	}

	// Validator 1 commits a checkpoint its ledger does not hold, validator
	// 3 a height its chain has not reached.
	h, err := w.store.Head(w.keys[1].Public())
	if err != nil {
		t.Fatal(err)
	}
	bad := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
	bad.Root[0] ^= 1
	if err := w.chain.SetCommitment(ctx, w.keys[1], bad.Fields()); err != nil {
		t.Fatal(err)
	}
	ahead := chain.ValidatorCommitment{Height: 99, Size: 1000}
	if err := w.chain.SetCommitment(ctx, w.keys[3], ahead.Fields()); err != nil {
		t.Fatal(err)
	}
	checks, err = CheckCommitments(ctx, w.chain, w.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{w.keys[1].Public().String(): "root", w.keys[3].Public().String(): "chain ends"}
	for _, c := range checks {
		sub, flagged := want[c.Validator.String()]
		if c.OK == flagged {
			t.Errorf("%s: ok %v (%s)", c.Validator, c.OK, c.Reason)
		}
		if flagged && !strings.Contains(c.Reason, sub) {
			t.Errorf("%s: reason %q does not mention %q", c.Validator, c.Reason, sub)
		}
	}

	// An earlier, honest checkpoint is still a commitment the head extends.
	b, err := w.store.BlockAt(w.keys[0].Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	old := chain.ValidatorCommitment{Height: 0, Size: b.Checkpoint.Size, Root: b.Checkpoint.Root}
	if err := w.chain.SetCommitment(ctx, w.keys[0], old.Fields()); err != nil {
		t.Fatal(err)
	}
	only := w.keys[0].Public()
	checks, err = CheckCommitments(ctx, w.chain, w.store, &only)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || !checks[0].OK {
		t.Fatalf("older honest commitment: %+v", checks)
	}
}
