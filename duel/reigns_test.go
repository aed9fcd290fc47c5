package duel

import (
	"errors"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

// decided is a result of champion against contender started at block
// start under ratio: the contender takes both envs when win, else loses
// every challenge.
func decided(t *testing.T, champion, contender Side, start uint64, ratio uint32, win bool) Result {
	t.Helper()
	s := scripted{label: "reigns", rule: Rule{ZMilli: 1960, Looks: []uint32{8}, MaxChallenges: 8}, ratio: ratio,
		envs: []string{"a", "b"}, rates: []uint32{0, 0}, draws: []uint32{0, 0}}
	if win {
		s.rates = []uint32{PPM, PPM}
	}
	in := s.input(t)
	in.Start.Number, in.Champion, in.Contender = start, champion, contender
	r, err := Recompute(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReignsFold walks a ledger's records through Reigns: a first result
// starts a reign at the floor, an adoption sets the frontier its first
// result runs under, results continue a reign, another champion starts
// one, and a record that does not fold leaves the frontier as it was.
func TestReignsFold(t *testing.T) {
	p := DefaultFrontierParams()
	side := func(b byte) Side { return Side{Hotkey: keys.PublicKey{b}, ModelHash: HexBytes{b}} }
	a, b, c, d := side(1), side(2), side(3), side(4)
	g := Reigns{Params: p}
	step := func(r Result, want ReignStart) {
		t.Helper()
		got, err := g.Result(r)
		if err != nil || got != want {
			t.Fatalf("result %s against %s at %d: %v, %v; want %v", r.Contender.Hotkey.Short(), r.Champion.Hotkey.Short(), r.Start.Number, got, err, want)
		}
	}

	step(decided(t, a, b, 10, p.Floor(), true), NewReign)
	if g.Frontier.Champion.Hotkey != b.Hotkey || g.Frontier.SetAt != 10 || g.Frontier.SetPPM != MaxRatioPPM {
		t.Fatalf("after the dethrone: %+v", g.Frontier)
	}
	ratio, _ := p.Ratio(*g.Frontier, 20)
	step(decided(t, b, c, 20, ratio, false), SameReign)

	// A result at another ratio than the one in force fails, and moves
	// nothing.
	before := *g.Frontier
	if _, err := g.Result(decided(t, b, c, 30, p.Floor(), false)); !errors.Is(err, ErrFrontier) {
		t.Fatalf("wrong ratio: err = %v", err)
	}
	if !reflect.DeepEqual(*g.Frontier, before) {
		t.Fatalf("a refused result moved the frontier: %+v, was %+v", g.Frontier, before)
	}

	// An adoption of d, crowned at block 25 with 600000.
	adopt := Adopt{Type: AdoptType, Version: AdoptVersion, Champion: d, SetPPM: 600_000, SetAt: 25}
	if err := g.Adopt(adopt); err != nil {
		t.Fatal(err)
	}
	ratio, _ = p.Ratio(*g.Frontier, 40)
	if ratio <= p.Floor() || ratio >= 600_000 {
		t.Fatalf("the adopted ratio at block 40 is %d", ratio)
	}
	step(decided(t, d, c, 40, ratio, false), AdoptedReign)
	ratio, _ = p.Ratio(*g.Frontier, 41)
	step(decided(t, d, a, 41, ratio, false), SameReign)

	// An adoption below the floor is refused and moves nothing.
	before = *g.Frontier
	low := adopt
	low.SetPPM = p.Floor() - 1
	if err := g.Adopt(low); !errors.Is(err, ErrFrontier) || !reflect.DeepEqual(*g.Frontier, before) {
		t.Fatalf("an adoption below the floor: err = %v, frontier %+v", err, g.Frontier)
	}
	step(decided(t, d, b, 50, mustRatio(t, p, *g.Frontier, 50), false), SameReign)

	// An adoption followed by another champion's result: a reign at the
	// floor, not the adopted one.
	if err := g.Adopt(adopt); err != nil {
		t.Fatal(err)
	}
	step(decided(t, a, c, 60, p.Floor(), false), NewReign)
	if g.Frontier.Champion.Hotkey != a.Hotkey || g.Frontier.SetPPM != p.Floor() || g.Frontier.SetAt != 60 {
		t.Fatalf("the reign after the abandoned adoption: %+v", g.Frontier)
	}
}

func mustRatio(t *testing.T, p FrontierParams, f Frontier, h uint64) uint32 {
	t.Helper()
	r, err := p.Ratio(f, h)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
