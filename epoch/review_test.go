package epoch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestForgedOutcomeCannotFaultAnotherValidator: a peer auditor takes a
// genuine fault outcome about the liar's transcript and relinks it with
// its validator field changed to an honest validator. Every honest node
// reproduces a fault on that record, but not on a record of the honest
// validator's: the forged outcome is not reproduced (spec/vtrust.md, "one
// auditor cannot zero another validator by lying about it") and must not
// be fed.
func TestForgedOutcomeCannotFaultAnotherValidator(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	rogue, victim, observer := w.keys[0], w.keys[1], w.keys[3]
	var forged *vtrust.Outcome
	a := NewAuditor(rogue.Public(), w.store)
	if _, err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	for _, o := range a.Outcomes() {
		if o.Verdict == vtrust.Fault && o.Validator == w.keys[liar].Public() {
			o.Validator = victim.Public()
			forged = &o
			break
		}
	}
	if forged == nil {
		t.Fatal("no fault outcome about the liar to forge from")
	}
	raw, err := codec.Marshal(*forged)
	if err != nil {
		t.Fatal(err)
	}
	app, err := w.store.NewAppender(rogue)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Append(ctx, recordtest.Anchor(4), nil, [][]byte{raw}); err != nil {
		t.Fatal(err)
	}
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	out, _, err := Compute(ctx, w.chain, NewAuditor(observer.Public(), w.store), 1, duel.Side{Hotkey: w.champ.Public()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range out.Validators {
		if tr.Hotkey == victim.Public() && (tr.HardFault || tr.VTrustPPM != vtrust.PPM) {
			t.Errorf("honest validator %s: hard fault %v, vTrust %d ppm, from an outcome relabelled by %s", victim.Public(), tr.HardFault, tr.VTrustPPM, rogue.Public())
		}
	}
}

// TestRefusedWeightsStillMoveTheChampion: the champion path is a function
// of the ledgers, not of whether this node's weight write went through.
// A node whose set_weights the chain refuses (here: it holds no validator
// permit; on subtensor also a rate limit or an RPC error) computed the
// same winner as everyone; keeping the old champion would make it walk
// from another champion than its peers in every later epoch.
func TestRefusedWeightsStillMoveTheChampion(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	obs := recordtest.Hotkey(t, "//Observer")
	if _, err := w.chain.Register(obs.Public(), 1, false); err != nil {
		t.Fatal(err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Chain: w.chain, Store: w.store, Key: obs, Champion: duel.Side{Hotkey: w.champ.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 1); err == nil {
		t.Fatal("set_weights without a permit went through; the test needs a refused write")
	}
	if got := d.Champion().Hotkey; got != w.con.Public() {
		t.Errorf("after epoch 1, whose consensus dethroned the champion, the node's champion is %s, want the contender %s", got, w.con.Public())
	}
}

// TestFailedEpochStillReveals: a commit is revealed in one chain epoch
// only. An epoch whose computation fails (here the auditor cannot record
// its outcomes) must still reveal the commits due: they were computed and
// committed an epoch before, and a reveal never depends on this epoch's
// computation (spec/epoch.md, "Reveals").
func TestFailedEpochStillReveals(t *testing.T) {
	w := newWorld(t, true)
	ctx := context.Background()
	d := w.drivers(t)[0]
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	if rep, err := d.Step(ctx, 1); err != nil || !rep.Committed {
		t.Fatalf("epoch 1: committed %v, %v", rep.Committed, err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	// The node's appender is gone (closed, disk full): auditing a new peer
	// block fails, and with it the epoch's computation.
	app, err := w.store.NewAppender(w.keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.auditor.Record(d.recorder(ctx, app, func() {})); err != nil {
		t.Fatal(err)
	}
	tr, err := verifytest.Transcript(w.keys[1].Public(), recordtest.Anchor(12), "mult8", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := w.store.NewAppender(w.keys[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := peer.Append(ctx, recordtest.Anchor(12), []record.Transcript{tr}, nil); err != nil {
		t.Fatal(err)
	}
	if err := peer.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 2); err == nil {
		t.Fatal("epoch 2 computed; the test needs a failing computation")
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0].UIDs) != 1 || rows[0].UIDs[0] != w.uid(t, w.con.Public()) {
		t.Errorf("weights after epoch 2, whose computation failed: %+v; want epoch 1's commit revealed", rows)
	}
}

// TestRefusedCommitmentStillMovesTheChampion: as with weights, a
// commitment the chain refuses (here the commitment space is spent) leaves
// the node without weights for the epoch, but not behind its peers on
// the champion path.
func TestRefusedCommitmentStillMovesTheChampion(t *testing.T) {
	w := newModelWorld(t, false, 5, []uint64{100, 100, 1})
	ctx := context.Background()
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	spendCommitmentSpace(t, w, w.keys[0])
	d := w.drivers(t, w.champ)[0]
	if _, err := d.Step(ctx, 1); !errors.Is(err, chain.ErrSpaceLimit) {
		t.Fatalf("epoch 1: %v, want the commitment refused for space", err)
	}
	if got := d.Champion().Hotkey; got != w.con.Hotkey {
		t.Errorf("after epoch 1, whose consensus dethroned the champion, the node's champion is %s, want the contender %s", got, w.con.Hotkey)
	}
	if rows, _ := w.chain.Weights(ctx); len(rows) != 0 {
		t.Errorf("weights set without the checkpoint committed first: %+v", rows)
	}
}

// TestNoWeightsForAUidThatChangedHands: the winner's uid is read at the
// epoch's first block. If the winner is pruned before the weights are
// written and a newcomer registers in its uid, the weights would reward
// the newcomer (Yuma masks only rows set before its registration): none
// are written. The champion still moves with the ledgers.
func TestNoWeightsForAUidThatChangedHands(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	d := w.drivers(t)[0]
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	uid := w.uid(t, w.con.Public())
	newcomer := recordtest.Hotkey(t, "//Newcomer")
	if err := w.chain.Replace(uid, newcomer.Public(), 1); err != nil {
		t.Fatal(err)
	}
	_, err := d.Step(ctx, 1)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("uid %d", uid)) || !strings.Contains(err.Error(), newcomer.Public().String()) {
		t.Fatalf("epoch 1 with the winner's uid taken over: %v, want an error naming uid %d and the newcomer", err, uid)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Fatalf("weights written: %+v", rows)
	}
	if got := d.Champion().Hotkey; got != w.con.Public() {
		t.Errorf("champion after epoch 1: %s, want the contender %s", got, w.con.Public())
	}

	// Without the takeover the same epoch sets the weights: the refusal
	// above is the uid's, not the world's.
	w2 := newWorld(t, false)
	if err := w2.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.drivers(t)[0].Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if rows, err := w2.chain.Weights(ctx); err != nil || len(rows) != 1 || rows[0].UIDs[0] != w2.uid(t, w2.con.Public()) {
		t.Fatalf("weights without the takeover: %+v, %v", rows, err)
	}
}

// spendCommitmentSpace spends k's commitment space for the chain's current
// epoch on another checkpoint: its next commitment there is refused.
func spendCommitmentSpace(t *testing.T, w *modelWorld, k *keys.Hotkey) {
	t.Helper()
	other := chain.ValidatorCommitment{Height: 999}.Fields()
	for {
		err := w.chain.SetCommitment(context.Background(), k, other)
		if errors.Is(err, chain.ErrSpaceLimit) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
