package epoch

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/vtrust"
)

// linkedOutcomes reads the outcome records validator k's chain links.
func linkedOutcomes(t *testing.T, w *world, k int) []vtrust.Outcome {
	t.Helper()
	var out []vtrust.Outcome
	for b, err := range w.store.Blocks(w.keys[k].Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range b.Decisions {
			raw, err := w.store.Object(d.Cid)
			if err != nil {
				t.Fatal(err)
			}
			if o, err := vtrust.DecodeOutcome(raw); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// TestAuditorRecordsOutcomesOnce: an auditor with a recorder links one
// outcome per peer transcript from its own chain, the liar's as faults;
// a second auditor over the same store (a restarted node) audits again
// but writes nothing it already linked.
func TestAuditorRecordsOutcomesOnce(t *testing.T) {
	w := newWorld(t, false)
	self := w.keys[0]
	app, err := w.store.NewAppender(self)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	d, err := New(Config{Chain: w.chain, Store: w.store, Key: self})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	published := 0
	rec := d.recorder(ctx, app, func() { published++ })

	// One outcome per peer record judged: each transcript, and each duel
	// result (one per peer in this world).
	peerRecords := 0
	for i, k := range w.keys {
		if i == 0 {
			continue
		}
		for b, err := range w.store.Blocks(k.Public(), 0) {
			if err != nil {
				t.Fatal(err)
			}
			peerRecords += len(b.Transcripts) + len(b.Decisions)
		}
	}
	if peerRecords == 0 {
		t.Fatal("the world has no peer transcripts to audit")
	}
	before := len(linkedOutcomes(t, w, 0))

	a := NewAuditor(self.Public(), w.store)
	if err := a.Record(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	got := linkedOutcomes(t, w, 0)
	if len(got)-before != peerRecords {
		t.Fatalf("own chain links %d new outcomes, want one per peer transcript and duel result (%d)", len(got)-before, peerRecords)
	}
	if published == 0 {
		t.Fatal("no block was published after recording")
	}
	faults := 0
	for _, o := range got[before:] {
		if o.Auditor != self.Public() {
			t.Fatalf("outcome signed for auditor %s", o.Auditor)
		}
		if o.Verdict == vtrust.Fault {
			if o.Validator != w.keys[liar].Public() {
				t.Fatalf("fault against honest validator %s: %s", o.Validator, o.Reason)
			}
			faults++
		}
	}
	if faults == 0 {
		t.Fatal("the liar's transcripts drew no fault")
	}
	// The records pass the strict decision check a validator's store uses.
	for _, o := range got {
		raw, err := codec.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := record.CheckDecision(raw); err != nil {
			t.Fatal(err)
		}
	}

	head, err := w.store.Head(self.Public())
	if err != nil {
		t.Fatal(err)
	}
	again := NewAuditor(self.Public(), w.store)
	if err := again.Record(rec); err != nil {
		t.Fatal(err)
	}
	if n, err := again.CatchUp(); err != nil || n == 0 {
		t.Fatalf("restarted auditor audited %d blocks: %v", n, err)
	}
	if len(again.Outcomes()) != peerRecords {
		t.Fatalf("restarted auditor holds %d outcomes, want %d", len(again.Outcomes()), peerRecords)
	}
	after, err := w.store.Head(self.Public())
	if err != nil {
		t.Fatal(err)
	}
	if after.Block.Height != head.Block.Height {
		t.Fatalf("restarted auditor appended blocks %d..%d again", head.Block.Height+1, after.Block.Height)
	}
}
