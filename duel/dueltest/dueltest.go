// Package dueltest makes duel records for other packages' tests.
package dueltest

import (
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// SampleResult is a small valid duel result: the contender wins both envs
// at the first look.
func SampleResult(t testing.TB) duel.Result {
	t.Helper()
	return Decided(t, duel.Side{Hotkey: keys.PublicKey{1}, ModelHash: duel.HexBytes{0xa}},
		duel.Side{Hotkey: keys.PublicKey{2}, ModelHash: duel.HexBytes{0xb}}, 12, 520_000, duel.Win)
}

// Decided is a valid duel result of two envs, started at chain block
// start under ratioPPM, whose every challenge the contender won (duel.Win)
// or lost (duel.Loss): decided at the first look, if the ratio lets it.
func Decided(t testing.TB, champion, contender duel.Side, start uint64, ratioPPM uint32, o duel.Outcome) duel.Result {
	t.Helper()
	rule := duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16}, MaxChallenges: 40}
	in := duel.Input{
		Start:     duel.Anchor{Number: start, Hash: duel.Hash{1}},
		Champion:  champion,
		Contender: contender,
		Rule:      rule, RatioPPM: ratioPPM,
	}
	for _, env := range []string{"abd", "mult8"} {
		e := duel.EnvInput{Env: env}
		for c := uint64(0); c < 8; c++ {
			id, err := challenge.Derive([32]byte{1}, [32]byte{9}, env, 1, c)
			if err != nil {
				t.Fatal(err)
			}
			e.Samples = append(e.Samples, duel.Sample{ID: id, Outcome: o})
		}
		in.Envs = append(in.Envs, e)
	}
	r, err := duel.Recompute(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
