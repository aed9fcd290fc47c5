package explorertest_test

import (
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestFill checks the fixture is what its doc promises: stored through a
// store that checks duel results, duels decided with their transcripts in
// the log, outcomes that decode, a multi-turn transcript, the hostile one.
func TestFill(t *testing.T) {
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := explorertest.Fill(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Duels) != 2 || len(f.Outcomes) == 0 || !f.XSS.Defined() || !f.Multi.Defined() {
		t.Fatalf("fixture incomplete: %d duels, %d outcomes, xss %v, multi %v", len(f.Duels), len(f.Outcomes), f.XSS, f.Multi)
	}
	for i, c := range f.Duels {
		raw, err := s.Object(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := duel.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range r.Envs {
			n += len(e.Challenges)
		}
		t.Logf("duel %d: winner %s, %d challenges, envs won %d", i, r.Winner, n, r.EnvsWon)
		if r.Winner != "contender" {
			t.Errorf("duel %d: the contender (wrong 12%%) lost to the champion (wrong 45%%)", i)
		}
	}
	for _, c := range f.Outcomes {
		raw, err := s.Object(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vtrust.DecodeOutcome(raw); err != nil {
			t.Fatal(err)
		}
	}
	m, err := s.Transcript(f.Multi)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.TurnRewards) < 2 {
		t.Errorf("multi-turn transcript has %d turns", len(m.TurnRewards))
	}
	x, err := s.Transcript(f.XSS)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, msg := range x.Conversation {
		found = found || (msg.Role == "assistant" && msg.Content == explorertest.XSSReply)
	}
	if !found {
		t.Errorf("hostile transcript does not hold the hostile reply")
	}
	t.Logf("%d transcripts", len(f.Transcripts))
}
