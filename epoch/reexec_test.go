package epoch

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/affine-ledger/ledger/vtrust"
)

// liar is the validator index whose recorded rewards do not reproduce.
const liar = 2

func buildStore(t *testing.T, validators int) (*ledger.Store, []*keys.Hotkey) {
	return buildStoreLying(t, validators, true)
}

// buildStoreLying builds the ledgers; with rewards, the liar records a
// reward that does not reproduce.
func buildStoreLying(t *testing.T, validators int, rewards bool) (*ledger.Store, []*keys.Hotkey) {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ks, err := verifytest.Build(s, verifytest.Spec{
		Validators: validators, Blocks: 2, PerBlock: 3,
		Mutate: func(v, b, i int, tr *record.Transcript) {
			if rewards && v == liar && b == 1 && i == 0 {
				tr.Reward++
				if n := len(tr.TurnRewards); n > 0 {
					tr.TurnRewards[n-1]++
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, ks
}

func TestAuditHonestAndLyingBlocks(t *testing.T) {
	s, ks := buildStore(t, 3)
	self := ks[0].Public()
	a := NewAuditor(self, s)
	n, err := a.CatchUp()
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("audited %d blocks, want 4 (2 per peer)", n)
	}
	counts := map[keys.PublicKey]map[vtrust.Verdict]int{}
	for _, o := range a.Outcomes() {
		if o.Auditor != self {
			t.Fatalf("outcome signed by %s", o.Auditor)
		}
		if o.Validator == self {
			t.Fatal("auditor judged itself")
		}
		if counts[o.Validator] == nil {
			counts[o.Validator] = map[vtrust.Verdict]int{}
		}
		counts[o.Validator][o.Verdict]++
		if o.Verdict == vtrust.Fault && !strings.Contains(o.Reason, "reward") {
			t.Errorf("fault reason %q does not name the reward", o.Reason)
		}
	}
	if c := counts[ks[1].Public()]; c[vtrust.Agree] != 6 || len(c) != 1 {
		t.Errorf("honest peer: %v, want 6 agree", c)
	}
	if c := counts[ks[liar].Public()]; c[vtrust.Fault] != 1 || c[vtrust.Agree] != 5 {
		t.Errorf("lying peer: %v, want 1 fault and 5 agree", c)
	}
	// A second catch-up finds nothing new: blocks are audited once.
	if n, err := a.CatchUp(); err != nil || n != 0 {
		t.Fatalf("second catch-up audited %d blocks (%v), want 0", n, err)
	}

	// Pruning below the blocks' anchors keeps everything; above, nothing.
	all := len(a.Outcomes())
	if a.Prune(1); len(a.Outcomes()) != all {
		t.Fatalf("pruning below every anchor dropped outcomes: %d of %d left", len(a.Outcomes()), all)
	}
	kept := a.Outcomes()
	defer func() {
		if a.Prune(100); len(a.Outcomes()) != 0 {
			t.Errorf("pruning above every anchor kept %d outcomes", len(a.Outcomes()))
		}
	}()

	out, err := vtrust.Epoch(vtrust.Input{
		Validators: []vtrust.Validator{{Hotkey: self, Stake: 1}, {Hotkey: ks[1].Public(), Stake: 1}, {Hotkey: ks[liar].Public(), Stake: 1}},
		Outcomes:   kept,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range out.Validators {
		if tr.HardFault != (tr.Hotkey == ks[liar].Public()) {
			t.Errorf("validator %s: hard fault %v", tr.Hotkey, tr.HardFault)
		}
	}
}

func TestAuditOwnBlockRefused(t *testing.T) {
	s, ks := buildStore(t, 1)
	b, err := s.BlockAt(ks[0].Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Audit(ks[0].Public(), s, b); err == nil {
		t.Fatal("auditing one's own block succeeded")
	}
}
