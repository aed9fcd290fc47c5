package validator_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
)

// Two equally good miners rarely dethrone each other.
//
// Under the network's rule, a contender exactly as good as the champion
// (win rate 1/2 on decisive challenges) against the floor ratio 0.52 takes
// a duel of three envs with probability 0.65% (spec/duel.md). The
// simulation of package duel, 2000 duels from a fixed seed, must stay
// within 1.5 points of that exact figure (its standard error is 0.18
// points, so the tolerance is eight of them); the exact figure itself
// must stay below 1%.
//
// Then real duels over HTTP between two noisy:0.5 miners (each right half
// of the time, independently: half the challenges are draws) under a shorter rule, whose exact false-dethrone
// probability is printed: at most one of three may be lost by the champion
// (with per-duel probability q, three duels lose two or more with
// probability about 3q^2, under 0.5% for the q of this rule).
func TestEqualMinersRarelyDethrone(t *testing.T) {
	t.Parallel()
	rule := duel.DefaultRule()
	floor := duel.DefaultFrontierParams().Floor()
	env, err := duel.ExactEnv(rule, floor, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	law, err := duel.ExactDuel([]duel.EnvLaw{env, env, env})
	if err != nil {
		t.Fatal(err)
	}
	if law.Dethrone > 0.01 {
		t.Fatalf("exact false dethrone of equal miners: %.4f, want under 1%%", law.Dethrone)
	}
	cases := []duel.Case{{RatioPPM: floor, RatesPPM: []uint32{500_000, 500_000, 500_000}}}
	res, err := duel.Simulate(duel.SimConfig{Rule: rule, Fixed: duel.FixedRule{Challenges: 400, ZMilli: 1960}, Duels: 2000, Seed: sha256.Sum256([]byte("validator equal miners"))}, cases)
	if err != nil {
		t.Fatal(err)
	}
	sim := res[0].Sequential.DethroneRate
	if d := sim - law.Dethrone; d > 0.015 || d < -0.015 {
		t.Fatalf("simulated false dethrone %.4f, exact %.4f", sim, law.Dethrone)
	}
	t.Logf("equal miners, network rule: exact dethrone %.4f, simulated %.4f over 2000 duels", law.Dethrone, sim)

	short := duel.Rule{ZMilli: 1960, Looks: []uint32{16, 32, 64}, MaxChallenges: 300}
	env, err = duel.ExactEnv(short, floor, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	shortLaw, err := duel.ExactDuel([]duel.EnvLaw{env, env, env})
	if err != nil {
		t.Fatal(err)
	}
	if 3*shortLaw.Dethrone*shortLaw.Dethrone > 0.005 {
		t.Fatalf("the short rule's false dethrone %.4f is too high for this test", shortLaw.Dethrone)
	}

	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.5", seed: 11}, minerSpec{name: "Cont", strategy: "noisy:0.5", seed: 12})
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = short
	v := newValidator(t, cfg)
	defer v.Close()
	lost := 0
	for i := 0; i < 3; i++ {
		n.advance(t)
		champ, cont := n.miners["Champ"], n.miners["Cont"]
		if f := v.History().Frontier; f != nil && f.Champion.Hotkey == cont.Hotkey {
			champ, cont = cont, champ
		}
		// RunDuel, unlike Run, duels any pair it is given: the same two
		// models meet again, from a new anchor and so on new challenges.
		r, err := v.RunDuel(testCtx(t, 40*time.Second), champ, cont)
		if err != nil {
			t.Fatal(err)
		}
		if r.Winner == "contender" {
			lost++
		}
		t.Logf("duel %d: %s", i, describe(r))
	}
	if lost > 1 {
		t.Fatalf("equal miners: the champion lost %d of 3 duels (short rule's exact rate %.4f per duel)", lost, shortLaw.Dethrone)
	}
	t.Logf("short rule: exact false dethrone %.4f per duel; champion lost %d of 3", shortLaw.Dethrone, lost)
	v.Close()
	audit(t, s, n.key.Public(), v.History())
}
