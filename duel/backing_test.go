package duel

import (
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
)

// TestCheckBacking: each way a result can disagree with the log of the
// validator that recorded it, with the log as a map of pairs.
func TestCheckBacking(t *testing.T) {
	v := keys.PublicKey{7}
	start := Anchor{Number: 9, Hash: Hash{1, 2, 3}}
	drawn := func(env string, c uint64) challenge.ID {
		id, err := challenge.Derive(start.Hash, v, env, 1, c)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	// The contender wins every challenge; counter 2 was passed over (no
	// pair recorded). Samples are fed until the duel decides.
	log := map[challenge.ID]Pair{}
	var r Result
	var samples []Sample
	for c := uint64(0); r.Winner == ""; c++ {
		if c == 2 {
			continue
		}
		if c > 24 {
			t.Fatal("undecided after 24 challenges")
		}
		id := drawn("a", c)
		samples = append(samples, Sample{ID: id, Outcome: Win})
		log[id] = Pair{Champion: 0, Contender: 1, OK: true}
		var err error
		r, err = Recompute(Input{Start: start, Champion: Side{Hotkey: keys.PublicKey{1}}, Contender: Side{Hotkey: keys.PublicKey{2}},
			Rule: EverySampleRule(1960, 12, 24), RatioPPM: 500_000, Envs: []EnvInput{{Env: "a", Samples: samples}}})
		if err != nil && !errors.Is(err, ErrUndecided) {
			t.Fatal(err)
		}
	}
	lookup := func(l map[challenge.ID]Pair) PairLookup {
		return func(id challenge.ID) (Pair, error) { return l[id], nil }
	}
	with := func(edit func(map[challenge.ID]Pair)) map[challenge.ID]Pair {
		l := map[challenge.ID]Pair{}
		for k, p := range log {
			l[k] = p
		}
		edit(l)
		return l
	}
	letters := len(r.Envs[0].Outcomes)

	b, err := CheckBacking(v, r, lookup(log))
	if err != nil || b != (Backing{Checked: letters}) {
		t.Fatalf("the log it was played from: %+v, %v; want %d checked", b, err, letters)
	}
	b, err = CheckBacking(v, r, lookup(with(func(l map[challenge.ID]Pair) { delete(l, drawn("a", 3)) })))
	if err != nil || b != (Backing{Checked: letters - 1, Unbacked: 1}) {
		t.Fatalf("one pair missing: %+v, %v; want it unbacked", b, err)
	}
	lookupErr := errors.New("disk on fire")
	if _, err := CheckBacking(v, r, func(challenge.ID) (Pair, error) { return Pair{}, lookupErr }); !errors.Is(err, lookupErr) {
		t.Fatalf("a failing lookup: %v", err)
	}

	for _, tc := range []struct {
		name   string
		log    map[challenge.ID]Pair
		r      func(Result) Result
		reason string
	}{
		{"a draw recorded as a win", with(func(l map[challenge.ID]Pair) { l[drawn("a", 4)] = Pair{Champion: 1, Contender: 1, OK: true} }), nil,
			"env a, challenge 3 (" + drawn("a", 4).String() + "): outcome W recorded, but the transcripts give D"},
		{"a passed-over counter's pair left out", with(func(l map[challenge.ID]Pair) { l[drawn("a", 2)] = Pair{OK: true} }), nil,
			"counter 2, passed over before it, has both transcripts in the log"},
		{"another validator's challenge", log, func(r Result) Result {
			other, err := challenge.Derive(start.Hash, keys.PublicKey{8}, "a", 1, 5)
			if err != nil {
				t.Fatal(err)
			}
			r.Envs[0].Challenges = append([]challenge.ID(nil), r.Envs[0].Challenges...)
			r.Envs[0].Challenges[2] = other
			return r
		}, "env a, challenge 2 ("},
		{"challenges out of counter order", log, func(r Result) Result {
			cs := append([]challenge.ID(nil), r.Envs[0].Challenges...)
			cs[0], cs[1] = cs[1], cs[0]
			r.Envs[0].Challenges = cs
			return r
		}, "env a, challenge 0 (" + drawn("a", 1).String() + "): counter 0, passed over"},
		{"a counter past the rule's bound", log, func(r Result) Result {
			r.Rule.MaxChallenges = 24
			r.Envs[0].Challenges = append([]challenge.ID(nil), r.Envs[0].Challenges...)
			last := len(r.Envs[0].Challenges) - 1
			r.Envs[0].Challenges[last] = drawn("a", 24+CounterSlack+1)
			return r
		}, "to 152 draws it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := r
			if tc.r != nil {
				// Envs is shared with r: each case edits its own.
				rr.Envs = append([]EnvResult(nil), r.Envs...)
				rr = tc.r(rr)
			}
			_, err := CheckBacking(v, rr, lookup(tc.log))
			var be *BackingError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("%v, want a BackingError naming %q", err, tc.reason)
			}
		})
	}
}
