package epoch

import (
	"bytes"
	"context"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestDethronePending: what a validator's duel loop reads of the epochs
// (validator.ConsensusView). Validator 2 (250 of the 550 stake) records a
// dethrone in epoch 1; alone it is not enough, and it stays pending while
// its vote stands. Once the validators holding the rest record that the
// champion held, no vote can carry it, and once it no longer stands it
// cannot either.
func TestDethronePending(t *testing.T) {
	ctx := context.Background()
	champ := func(w *world) duel.Side { return duel.Side{Hotkey: w.champ.Public()} }
	con := func(w *world) duel.Side { return duel.Side{Hotkey: w.con.Public()} }

	w := newBareWorld(t, false, false)
	d := w.drivers(t)[3]
	if _, ok := d.ConsensusChampion(); ok || !d.DethronePending(champ(w), con(w), 3) {
		t.Fatal("before any epoch: a consensus champion, or a dethrone not pending")
	}
	w.recordDuel(t, 2, recordtest.Anchor(3), false)
	if err := w.chain.Advance(2*tempo + 2); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if c, ok := d.ConsensusChampion(); !ok || !c.Equal(champ(w)) {
		t.Fatalf("epoch 1: consensus champion %v %v, want the champion held", c.Hotkey, ok)
	}
	if !d.DethronePending(champ(w), con(w), 3) {
		t.Error("epoch 1: the dethrone of epoch 1, alone, is not pending")
	}
	// Epoch 24 is the last whose successor still counts epoch 1's votes.
	for _, c := range []struct {
		k    uint64
		want bool
	}{{23, true}, {24, false}} {
		k, want := c.k, c.want
		head, err := w.chain.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.chain.Advance(int((k+1)*tempo + 2 - head.Number)); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Step(ctx, k); err != nil {
			t.Fatal(err)
		}
		if got := d.DethronePending(champ(w), con(w), 3); got != want {
			t.Errorf("after epoch %d: a dethrone started in epoch 1 pending %v, want %v", k, got, want)
		}
		if !d.DethronePending(champ(w), con(w), uint64(k)*tempo) {
			t.Errorf("after epoch %d: a dethrone started in it is not pending", k)
		}
	}

	// The others, 300 of the stake, saw the champion hold.
	w = newBareWorld(t, false, false)
	d = w.drivers(t)[3]
	w.recordDuel(t, 2, recordtest.Anchor(3), false)
	for _, i := range []int{0, 1, 3} {
		w.recordDuel(t, i, recordtest.Anchor(4), true)
	}
	if err := w.chain.Advance(2*tempo + 2); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d.DethronePending(champ(w), con(w), 3) {
		t.Error("a dethrone more than half of the stake voted against is pending")
	}
	if !d.DethronePending(con(w), champ(w), 3) {
		t.Error("a pair no one voted on is not pending")
	}
}

// TestCrowningVote: the vote that crowned an epoch's winner is a vote for
// the contender on a pair the winner won by consensus; the latest start,
// then the smallest record CID.
func TestCrowningVote(t *testing.T) {
	side := func(b byte) duel.Side { return duel.Side{Hotkey: keys.PublicKey{b}, ModelHash: duel.HexBytes{b}} }
	a, b, c := side(1), side(2), side(3)
	vote := func(v byte, champion, contender duel.Side, start uint64, winner string) vtrust.Vote {
		return vtrust.Vote{Validator: keys.PublicKey{v}, Record: codec.LinkTo(codec.Sum([]byte{v, byte(start), winner[0]})),
			Start: start, Champion: champion, Contender: contender, Winner: winner}
	}
	out := vtrust.Output{Champion: b, Duels: []vtrust.Duel{
		{Champion: a, Contender: b, Winner: "contender"},
		{Champion: c, Contender: b, Winner: "champion"},  // a dethrone of c by b that did not carry
		{Champion: a, Contender: c, Winner: "contender"}, // won, but c is not the winner
	}}
	lateLoss := vote(4, a, b, 90, "champion")
	notCarried := vote(5, c, b, 80, "contender")
	otherWinner := vote(6, a, c, 70, "contender")
	early := vote(7, a, b, 10, "contender")
	late := vote(8, a, b, 30, "contender")
	tieA, tieB := vote(9, a, b, 30, "contender"), vote(10, a, b, 30, "contender")
	if got := crowningVote(out, []vtrust.Vote{lateLoss, notCarried, otherWinner}); got != nil {
		t.Fatalf("no vote crowned the winner, got %+v", got)
	}
	got := crowningVote(out, []vtrust.Vote{early, lateLoss, notCarried}, []vtrust.Vote{late, otherWinner})
	if got == nil || got.Validator != late.Validator {
		t.Fatalf("got %+v, want the later of the two crowning votes, a standing one", got)
	}
	smaller := tieA
	if bytes.Compare(tieB.Record.Cid.Bytes(), tieA.Record.Cid.Bytes()) < 0 {
		smaller = tieB
	}
	for _, order := range [][]vtrust.Vote{{tieA, tieB}, {tieB, tieA}} {
		if got := crowningVote(out, order); got == nil || got.Validator != smaller.Validator {
			t.Fatalf("tie at one start: got %+v, want the smaller CID's, validator %s", got, smaller.Validator)
		}
	}
	// Another model of the winner's hotkey is not the winner.
	out.Champion = duel.Side{Hotkey: b.Hotkey, ModelHash: duel.HexBytes{0xff}}
	if got := crowningVote(out, []vtrust.Vote{early, late}); got != nil {
		t.Fatalf("votes for another model of the winner's hotkey crowned it: %+v", got)
	}
}

// TestDriverCrowning: the driver names the crowning vote of the last epoch
// for its winner only.
func TestDriverCrowning(t *testing.T) {
	winner := duel.Side{Hotkey: keys.PublicKey{2}, ModelHash: duel.HexBytes{2}}
	vote := vtrust.Vote{Validator: keys.PublicKey{9}, Record: codec.LinkTo(codec.Sum([]byte("crowning"))), Contender: winner}
	var d Driver
	if _, _, ok := d.Crowning(winner); ok {
		t.Fatal("a crowning before any epoch")
	}
	d.consensus = &consensusView{out: vtrust.Output{Champion: winner}}
	if _, _, ok := d.Crowning(winner); ok {
		t.Fatal("a crowning where the epoch counted none")
	}
	d.consensus.crowning = &vote
	if v, c, ok := d.Crowning(winner); !ok || v != vote.Validator || !c.Equals(vote.Record.Cid) {
		t.Fatalf("Crowning = %s %s %v, want the epoch's crowning vote", v.Short(), c, ok)
	}
	for _, other := range []duel.Side{{Hotkey: keys.PublicKey{3}, ModelHash: duel.HexBytes{2}}, {Hotkey: winner.Hotkey, ModelHash: duel.HexBytes{3}}} {
		if _, _, ok := d.Crowning(other); ok {
			t.Fatalf("a crowning of %s %x, which is not the winner", other.Hotkey.Short(), other.ModelHash)
		}
	}
}
