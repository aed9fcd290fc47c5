package epoch

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestStandingVotesDethroneAcrossEpochs: the validator with 250 of the
// 550 stake records its duel just before epoch 1's window ends, two with
// 200 between them just after, and the fourth none. Neither epoch's own
// votes hold more than half of the stake; with the first vote standing in
// epoch 2, the three together do, and every node's epoch 2 dethrones.
func TestStandingVotesDethroneAcrossEpochs(t *testing.T) {
	w := newBareWorld(t, false, false)
	ctx := context.Background()
	w.recordDuel(t, 2, recordtest.Anchor(tempo-1), false)
	w.recordDuel(t, 0, recordtest.Anchor(tempo+3), false)
	w.recordDuel(t, 1, recordtest.Anchor(tempo+4), false)
	if err := w.chain.Advance(2*tempo + 2); err != nil {
		t.Fatal(err)
	}
	for i, d := range w.drivers(t) {
		first, err := d.Step(ctx, 1)
		if err != nil {
			t.Fatalf("validator %d, epoch 1: %v", i, err)
		}
		if first.Output.Champion.Hotkey != w.champ.Public() || len(first.Output.Duels) != 1 || first.Output.Duels[0].Votes != 1 {
			t.Fatalf("validator %d, epoch 1: champion %s, duels %+v; want the champion kept on one vote", i, first.Output.Champion.Hotkey, first.Output.Duels)
		}
		second, err := d.Step(ctx, 2)
		if err != nil {
			t.Fatalf("validator %d, epoch 2: %v", i, err)
		}
		if second.Output.Champion.Hotkey != w.con.Public() {
			t.Errorf("validator %d, epoch 2: champion %s, want the contender %s", i, second.Output.Champion.Hotkey, w.con.Public())
		}
		if ds := second.Output.Duels; len(ds) != 1 || ds[0].Votes != 3 || ds[0].Standing != 1 {
			t.Errorf("validator %d, epoch 2: duels %+v, want one pair with 3 votes, 1 standing", i, ds)
		}
	}
}

// TestStandingWindow: epoch k's standing votes are those of the 23 windows
// before its own, fewer at the start, and the windows tile the blocks.
func TestStandingWindow(t *testing.T) {
	t.Parallel()
	for _, s := range []chain.Schedule{chain.TempoSchedule(10), chain.SubtensorSchedule(7, 360)} {
		if w := StandingWindow(1, s); w.From != w.To {
			t.Errorf("epoch 1 has standing votes from %+v", w)
		}
		for k := uint64(2); k < 60; k++ {
			w := StandingWindow(k, s)
			own := WindowOf(k, s)
			firstEpoch := max(int64(k)-23, 1)
			if w.To != own.From || w.From != WindowOf(uint64(firstEpoch), s).From {
				t.Fatalf("epoch %d: standing %+v, own window %+v, want from epoch %d's window", k, w, own, firstEpoch)
			}
		}
	}
}

// TestLedgerReadsStandingVotes: what an auditor reads of the store as
// votes age out of the standing windows, with the chains read before
// (epochs in order, then back, then a chain grown meanwhile) and read
// afresh by a new auditor each time.
func TestLedgerReadsStandingVotes(t *testing.T) {
	w := newBareWorld(t, false, false)
	w.recordDuel(t, 2, recordtest.Anchor(3), false)          // epoch 1
	w.recordDuel(t, 0, recordtest.Anchor(tempo+3), false)    // epoch 2
	w.recordDuel(t, 1, recordtest.Anchor(24*tempo+1), false) // epoch 25
	s := chain.TempoSchedule(tempo)
	self := w.keys[3].Public()
	warm := NewAuditor(self, w.store)
	v := func(is ...int) []keys.PublicKey {
		var out []keys.PublicKey
		for _, i := range is {
			out = append(out, w.keys[i].Public())
		}
		return out
	}
	for _, c := range []struct {
		k               uint64
		votes, standing []keys.PublicKey
		grow            bool // validator 3 records a duel in epoch 27 first
	}{
		{k: 24, standing: v(2, 0)},
		{k: 25, votes: v(1), standing: v(0)},
		{k: 26, standing: v(1)},
		{k: 24, standing: v(2, 0)}, // back: the chains are read again
		{k: 2, votes: v(0), standing: v(2)},
		{k: 1, votes: v(2)}, // an earlier epoch, same standing start
		{k: 3, standing: v(2, 0)},
		{k: 27, standing: v(1)},
		{k: 28, standing: v(1, 3), grow: true},
	} {
		if c.grow {
			w.recordDuel(t, 3, recordtest.Anchor(26*tempo+5), false)
		}
		for name, a := range map[string]*Auditor{"warm": warm, "cold": NewAuditor(self, w.store)} {
			r, err := a.Ledger(WindowOf(c.k, s), StandingWindow(c.k, s), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := voters(r.Votes); !sameSet(got, c.votes) {
				t.Errorf("epoch %d (%s): votes of %v, want %v", c.k, name, got, c.votes)
			}
			if got := voters(r.Standing); !sameSet(got, c.standing) {
				t.Errorf("epoch %d (%s): standing votes of %v, want %v", c.k, name, got, c.standing)
			}
		}
	}
}

func voters(votes []vtrust.Vote) []keys.PublicKey {
	var out []keys.PublicKey
	for _, v := range votes {
		out = append(out, v.Validator)
	}
	return out
}

func sameSet(a, b []keys.PublicKey) bool {
	count := func(ks []keys.PublicKey) map[keys.PublicKey]int {
		m := map[keys.PublicKey]int{}
		for _, k := range ks {
			m[k]++
		}
		return m
	}
	return reflect.DeepEqual(count(a), count(b))
}

// TestChainReaderReadsEachBlockOnce: a block read for one epoch is not
// read again for the next while it stands, and blocks anchored before the
// standing window are not visited.
func TestChainReaderReadsEachBlockOnce(t *testing.T) {
	w := newBareWorld(t, false, false)
	for i := range uint64(30) {
		w.recordDuel(t, 0, recordtest.Anchor(i*tempo+1), false) // one block in each epoch 1..30
	}
	s := chain.TempoSchedule(tempo)
	v := w.keys[0].Public()
	var r chainReader
	pass := func(k uint64) (fresh, total int, lowest uint64) {
		lowest = math.MaxUint64
		err := r.read(w.store, v, StandingWindow(k, s), WindowOf(k, s), func(b ledger.StoredBlock, kept []vtrust.Vote, isFresh bool) ([]vtrust.Vote, bool) {
			total++
			lowest = min(lowest, b.Height)
			if isFresh {
				fresh++
				votes, _, whole := blockDecisions(w.store, b, w.keys[3].Public())
				return votes, whole
			}
			if len(kept) != 1 {
				t.Errorf("epoch %d: block %d kept %d votes, want its 1", k, b.Height, len(kept))
			}
			return kept, true
		})
		if err != nil {
			t.Fatal(err)
		}
		return fresh, total, lowest
	}
	if fresh, total, _ := pass(28); fresh != total || total != 24 {
		t.Fatalf("first pass: %d fresh of %d blocks, want 24 of 24", fresh, total)
	}
	fresh, total, lowest := pass(29)
	if fresh != 1 || total != 24 {
		t.Fatalf("next epoch: %d fresh of %d blocks, want only the new window's 1 of 24", fresh, total)
	}
	h, err := w.store.Head(v)
	if err != nil {
		t.Fatal(err)
	}
	// The newest block is epoch 30's; the 24 before it are epochs 6 to 29.
	if first := h.Block.Height - 24; lowest != first {
		t.Fatalf("the lowest height visited is %d, want %d (epoch 6's block)", lowest, first)
	}
}
