package epoch

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
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
