package validator_test

import (
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/validator"
)

// fixedConsensus is a consensus that says the same whatever is asked.
type fixedConsensus struct {
	champion duel.Side
	pending  bool
}

func (f fixedConsensus) ConsensusChampion() (duel.Side, bool)          { return f.champion, true }
func (f fixedConsensus) DethronePending(_, _ duel.Side, _ uint64) bool { return f.pending }
func (f fixedConsensus) Crowning(duel.Side) (keys.PublicKey, cid.Cid, bool) {
	return keys.PublicKey{}, cid.Undef, false
}

// TestFollowsConsensusChampion: the validator's own duel dethrones the
// first champion, while the consensus keeps it. While that dethrone may
// still carry the consensus, the loop duels its own champion next; once
// it cannot, the loop duels the consensus champion, which starts a reign
// at the floor (spec/validator.md, "Following consensus").
func TestFollowsConsensusChampion(t *testing.T) {
	t.Parallel()
	for _, pending := range []bool{true, false} {
		t.Run(map[bool]string{true: "pending", false: "lost"}[pending], func(t *testing.T) {
			t.Parallel()
			n := newNet(t, minerSpec{name: "Noisy", strategy: "noisy:0.6"}, minerSpec{name: "Perfect", strategy: "perfect"},
				minerSpec{name: "Third", strategy: "noisy:0.6", seed: 3})
			s := openStore(t, t.TempDir())
			defer s.Close()
			cfg := n.config(s, nil)
			cfg.Envs, cfg.Rule = fastEnvs(t), shortRule()
			cfg.Consensus = fixedConsensus{champion: validator.Side(n.miners["Noisy"]), pending: pending}
			v := newValidator(t, cfg)
			defer v.Close()

			n.autoAdvance(t, 5*time.Millisecond)
			runDuels(t, testCtx(t, 60*time.Second), v, 2)
			es := v.History().Entries
			if es[0].Champion.Hotkey != n.miners["Noisy"].Hotkey || es[0].Winner != "contender" {
				t.Fatalf("first duel: %s against %s, winner %s; want Perfect to dethrone Noisy", es[0].Contender.Hotkey.Short(), es[0].Champion.Hotkey.Short(), es[0].Winner)
			}
			want, reign := "Perfect", false
			if !pending {
				want, reign = "Noisy", true
			}
			if e := es[1]; e.Champion.Hotkey != n.miners[want].Hotkey || e.Contender.Hotkey != n.miners["Third"].Hotkey || e.NewReign != reign {
				t.Fatalf("second duel: %s against %s, new reign %v; want Third against %s, new reign %v",
					e.Contender.Hotkey.Short(), e.Champion.Hotkey.Short(), e.NewReign, want, reign)
			}
			if reign && es[1].RatioPPM != duel.DefaultFrontierParams().Floor() {
				t.Fatalf("the consensus champion's reign starts at ratio %d, want the floor", es[1].RatioPPM)
			}
		})
	}
}
