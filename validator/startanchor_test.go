package validator_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Another writer of the validator's chain (a node's epoch driver) has
// anchored it at a chain block newer than the one the loop sees: a block
// never goes back to an older anchor, so a duel drawn at the loop's head
// would have seeds no block records. The duel starts at the anchor the
// chain records instead, every transcript records it as its seed's anchor,
// and verify places every seed exactly (audit).
func TestDuelStartsAtARecordedAnchor(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Perfect", strategy: "perfect"}, minerSpec{name: "Noisy", strategy: "noisy:0.6"})
	s := openStore(t, t.TempDir())
	defer s.Close()
	app, err := s.NewAppender(n.key)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	head, err := n.chain.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ahead := record.Anchor{Number: head.Number + 50, Hash: sha256.Sum256([]byte("the epoch driver's head"))}
	if _, err := app.Append(context.Background(), ahead, nil, nil); err != nil {
		t.Fatal(err)
	}
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Appender = app
	v := newValidator(t, cfg)
	defer v.Close()
	n.advance(t)
	if _, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Perfect"], n.miners["Noisy"]); err != nil {
		t.Fatal(err)
	}
	h := v.History()
	if got := h.Entries[0].Start; got.Number != ahead.Number || got.Hash != duel.Hash(ahead.Hash) {
		t.Fatalf("the duel started at %d %x, the chain records %d %s", got.Number, got.Hash[:], ahead.Number, ahead.Hash)
	}
	seeds := 0
	for b, err := range s.Blocks(n.key.Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b.TranscriptCIDs() {
			st, err := s.Transcript(c)
			if err != nil {
				t.Fatal(err)
			}
			if st.Seed == nil || st.Seed.Anchor != ahead {
				t.Fatalf("transcript %s: seed %+v, want anchor %d", c, st.Seed, ahead.Number)
			}
			seeds++
		}
	}
	if seeds == 0 {
		t.Fatal("no transcripts")
	}
	audit(t, s, n.key.Public(), h)
}
