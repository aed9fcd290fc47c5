package epoch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestCheckOwnChain: a validator whose store holds its committed chain may
// sign; one whose store is empty (lost), behind its commitment, or whose
// block at the committed height is another checkpoint (another machine
// signed) may not, and is told why.
func TestCheckOwnChain(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	v := w.keys[0].Public()
	if err := CheckOwnChain(ctx, w.chain, w.store, v); err != nil {
		t.Fatalf("no commitment yet: %v", err)
	}
	h, err := w.store.Head(v)
	if err != nil {
		t.Fatal(err)
	}
	honest := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
	commit := func(vc chain.ValidatorCommitment) {
		t.Helper()
		if err := w.chain.SetCommitment(ctx, w.keys[0], vc.Fields()); err != nil {
			t.Fatal(err)
		}
		if err := w.chain.Advance(1); err != nil {
			t.Fatal(err)
		}
	}
	commit(honest)
	if err := CheckOwnChain(ctx, w.chain, w.store, v); err != nil {
		t.Fatalf("the store holds the committed chain: %v", err)
	}

	lost, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	if err := CheckOwnChain(ctx, w.chain, lost, v); !errors.Is(err, ErrOwnChainBehind) || !strings.Contains(err.Error(), "no chain") {
		t.Errorf("an empty store: %v", err)
	}
	ahead := honest
	ahead.Height, ahead.Size = honest.Height+5, honest.Size+50
	commit(ahead)
	if err := CheckOwnChain(ctx, w.chain, w.store, v); !errors.Is(err, ErrOwnChainBehind) || !strings.Contains(err.Error(), "chain ends") {
		t.Errorf("a commitment above the store's head: %v", err)
	}
	other := honest
	other.Root[0] ^= 1
	commit(other)
	if err := CheckOwnChain(ctx, w.chain, w.store, v); !errors.Is(err, ErrOwnChainBehind) || !strings.Contains(err.Error(), "root") {
		t.Errorf("another checkpoint at the committed height: %v", err)
	}
}
