package local

import (
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestSubtensorEpochs: a genesis asking for subtensor's numbering runs its
// epochs where subtensor's epochs begin, keeps the state of those blocks,
// takes a reveal only in the commit's epoch plus the reveal period as
// subtensor numbers them, and says so in its params, over HTTP too.
func TestSubtensorEpochs(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	d.genesis.Netuid, d.genesis.SubtensorEpochs, d.genesis.RevealPeriod = 3, true, 1
	var calls atomic.Int32
	c := newManual(t, d.genesis, t.TempDir(), stakeConsensus(&calls))
	cl, err := Dial(ctx(t), serve(t, c))
	must(t, "dial", err)
	p, err := cl.Params(ctx(t))
	must(t, "params", err)
	s := chain.SubtensorSchedule(3, 10)
	if p.Schedule() != s {
		t.Fatalf("params over HTTP number epochs as %+v, want subtensor's %+v", p.Schedule(), s)
	}
	// Length 11, offset 4: epochs begin at 7, 18, 29.
	advance := func(n int) { must(t, "advance", c.Advance(n)) }
	for _, want := range []struct{ block, epoch, epochBlock uint64 }{{6, 0, 0}, {7, 1, 7}, {17, 1, 7}, {18, 2, 18}} {
		advanceTo(t, c, advance, want.block)
		m, err := c.Metagraph(ctx(t))
		must(t, "metagraph", err)
		if m.Epoch != want.epoch || m.EpochBlock != want.epochBlock {
			t.Fatalf("at block %d: epoch %d run at block %d, want epoch %d at %d", want.block, m.Epoch, m.EpochBlock, want.epoch, want.epochBlock)
		}
	}
	advance(1)
	if _, err := c.At(ctx(t), 18); err != nil {
		t.Errorf("state of block 18, where epoch 2 begins: %v", err)
	}

	// Committed at block 19 (epoch 2), revealed in epoch 3 only: [29, 40).
	w := chain.Weights{UIDs: []uint16{2}, Values: []uint16{65535}}
	r := chain.Reveal{Weights: w, Salt: []uint16{1, 2}}
	must(t, "commit", c.CommitWeights(ctx(t), d.alice, chain.CommitHash(d.alice.Public(), 3, r)))
	advanceTo(t, c, advance, 28)
	if err := c.RevealWeights(ctx(t), d.alice, r); err == nil {
		t.Fatal("revealed at block 28, in the commit's epoch 2")
	}
	advance(1)
	must(t, "reveal at block 29, epoch 3", c.RevealWeights(ctx(t), d.alice, r))
}
