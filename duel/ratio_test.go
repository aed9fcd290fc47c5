package duel

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/rng"
)

func TestDecayFloorTable(t *testing.T) {
	cases := []struct{ excess, elapsed, halfLife, want uint64 }{
		{100000, 0, 100, 100000},
		{100000, 100, 100, 50000},
		{100000, 200, 100, 25000},
		{100000, 50, 100, 70710},  // 100000/√2 = 70710.68
		{100000, 150, 100, 35355}, // 100000/2√2 = 35355.34
		{1000, 7200, 7200, 500},   // exact halves stay exact
		{479999, 7200, 7200, 239999},
		{479999, 0, 7200, 479999},
		{3, 1, 2, 2}, // 3/√2 = 2.12
		{999, 1, 1, 499},
		{1, 1, 7200, 0}, // any decay takes 1 below 1
		{600000, 19 * 7200, 7200, 1},
		{600000, 20 * 7200, 7200, 0},
		{600000, math.MaxUint64, 7200, 0},
		{0, 5, 7200, 0},
		{5, 0, 0, 5},
		{5, 3, 0, 0},
		// Beyond 2^20 the integer search answers (slower, still exact).
		{1 << 40, 10, 10, 1 << 39},
		{1 << 40, 5, 10, 777472127993}, // 2^40/√2 = 777472127993.87
		{1 << 40, 41 * 10, 10, 0},
	}
	for _, c := range cases {
		if got := DecayFloor(c.excess, c.elapsed, c.halfLife); got != c.want {
			t.Errorf("DecayFloor(%d, %d, %d) = %d, want %d", c.excess, c.elapsed, c.halfLife, got, c.want)
		}
	}
}

// DecayFloor is the largest y with y^h·2^elapsed <= excess^h: checked on
// random inputs by the defining inequality, and against floating point.
func TestDecayFloorIsExactFloor(t *testing.T) {
	t.Parallel()
	r := rng.New(rng.Derive([32]byte{}, "decay"))
	for range 300 {
		excess := uint64(r.IntRange(1, 1<<20-1))
		h := uint64(r.IntRange(1, 300))
		elapsed := uint64(r.IntRange(0, int64(25*h)))
		y := DecayFloor(excess, elapsed, h)
		pow := func(v uint64) *big.Int {
			x := new(big.Int).Exp(new(big.Int).SetUint64(v), new(big.Int).SetUint64(h), nil)
			return x.Lsh(x, uint(elapsed))
		}
		bound := new(big.Int).Exp(new(big.Int).SetUint64(excess), new(big.Int).SetUint64(h), nil)
		if pow(y).Cmp(bound) > 0 || pow(y+1).Cmp(bound) <= 0 {
			t.Fatalf("DecayFloor(%d, %d, %d) = %d is not the floor", excess, elapsed, h, y)
		}
		// The integer search finds the same floor from a poor guess on
		// either side (it is what DecayFloor falls back to near integers).
		for _, guess := range []uint64{y + 3, max(y, 3) - 3} {
			if exact := decayExact(excess, elapsed, h, guess); exact != y {
				t.Fatalf("DecayFloor(%d, %d, %d) = %d, the integer search from %d gives %d", excess, elapsed, h, y, guess, exact)
			}
		}
	}
}

func TestRatioAtDecaysToFloor(t *testing.T) {
	p := DefaultFrontierParams()
	if p.Floor() != 520000 {
		t.Fatalf("floor %d, want 520000 (0.5 + epsilon 0.02)", p.Floor())
	}
	cases := []struct {
		set     uint32
		elapsed uint64
		want    uint32
	}{
		{800000, 0, 800000},
		{800000, 7200, 660000},  // excess 280000 halves
		{800000, 14400, 590000}, // and halves again
		{800000, 3600, 717989},  // 280000/√2 = 197989.9
		{800000, 7200 * 40, 520000},
		{520000, 100, 520000},
		{400000, 0, 520000}, // below the floor means the floor
	}
	for _, c := range cases {
		if got := p.RatioAt(c.set, c.elapsed); got != c.want {
			t.Errorf("RatioAt(%d, %d) = %d, want %d", c.set, c.elapsed, got, c.want)
		}
	}
	prev := p.RatioAt(MaxRatioPPM, 0)
	for e := uint64(1); e < 7200*22; e += 773 {
		got := p.RatioAt(MaxRatioPPM, e)
		if got > prev {
			t.Fatalf("ratio rose from %d to %d at %d blocks", prev, got, e)
		}
		prev = got
	}
	if prev != p.Floor() {
		t.Fatalf("ratio %d after 22 half-lives, want the floor", prev)
	}
}

func TestGeoMeanPPM(t *testing.T) {
	cases := []struct {
		rates []uint32
		want  uint32
	}{
		{[]uint32{600000, 600000, 600000}, 600000},
		{[]uint32{500000, 800000}, 632455},          // √(4·10¹¹) = 632455.53
		{[]uint32{800000, 1000000, 640000}, 800000}, // a perfect cube: exact
		{[]uint32{2, 3, 4}, 2},                      // ∛24 = 2.88
		{[]uint32{0, 900000, 900000}, 0},
		{[]uint32{PPM, PPM, PPM}, PPM},
		{[]uint32{700000, 650000, 500000}, 610464}, // ∛(2.275·10¹⁷) = 610464.57
		{nil, 0},
	}
	for _, c := range cases {
		if got := GeoMeanPPM(c.rates); got != c.want {
			t.Errorf("GeoMeanPPM(%v) = %d, want %d", c.rates, got, c.want)
		}
	}
}

func TestFrontierApply(t *testing.T) {
	p := DefaultFrontierParams()
	alice, bob, carol := Side{Hotkey: keys.PublicKey{1}}, Side{Hotkey: keys.PublicKey{2}}, Side{Hotkey: keys.PublicKey{3}}
	f := p.Genesis(alice, 100)
	result := func(champion, contender Side, start uint64, ratio uint32, winner Decision, geo uint32) Result {
		return Result{Champion: champion, Contender: contender, Start: Anchor{Number: start}, RatioPPM: ratio, Winner: winner.String(), GeoMeanPPM: geo}
	}

	// The champion defends: nothing moves.
	f1, err := p.Apply(f, result(alice, bob, 500, 520000, Champion, 0))
	if err != nil || f1.SetPPM != f.SetPPM || f1.SetAt != f.SetAt || f1.Champion.Hotkey != alice.Hotkey {
		t.Fatalf("defence changed the frontier: %+v, %v", f1, err)
	}
	// Bob wins with rates of geometric mean 0.7: he sets 0.7 at block 1000.
	f2, err := p.Apply(f1, result(alice, bob, 1000, 520000, Contender, 700000))
	if err != nil {
		t.Fatal(err)
	}
	if f2.Champion.Hotkey != bob.Hotkey || f2.SetPPM != 700000 || f2.SetAt != 1000 {
		t.Fatalf("after bob's win: %+v", f2)
	}
	// One half-life later the excess 0.18 has halved to 0.09.
	if _, err := p.Apply(f2, result(bob, carol, 8200, 610000, Champion, 0)); err != nil {
		t.Fatalf("duel with the decayed ratio: %v", err)
	}
	for name, r := range map[string]Result{
		"stale ratio":      result(bob, carol, 8200, 700000, Champion, 0),
		"wrong champion":   result(alice, carol, 8200, 610000, Champion, 0),
		"before the reign": result(bob, carol, 999, 700000, Champion, 0),
	} {
		if _, err := p.Apply(f2, r); !errors.Is(err, ErrFrontier) {
			t.Errorf("%s: err %v, want ErrFrontier", name, err)
		}
	}
	// A winner with a weak geometric mean leaves the floor behind.
	f3, err := p.Apply(f2, result(bob, carol, 9000, p.RatioAt(700000, 8000), Contender, 300000))
	if err != nil || f3.SetPPM != p.Floor() {
		t.Fatalf("weak winner: %+v, %v", f3, err)
	}
}

func TestFrontierParamsValidate(t *testing.T) {
	if err := DefaultFrontierParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []FrontierParams{{EpsilonPPM: 500000, HalfLifeBlocks: 10}, {EpsilonPPM: 0, HalfLifeBlocks: 0}, {EpsilonPPM: 0, HalfLifeBlocks: MaxHalfLife + 1}} {
		if err := p.Validate(); !errors.Is(err, ErrFrontier) {
			t.Errorf("%+v: err %v", p, err)
		}
	}
	p := DefaultFrontierParams()
	if p.NextRatio(PPM) != MaxRatioPPM || p.NextRatio(0) != p.Floor() || p.NextRatio(654321) != 654321 {
		t.Error("NextRatio does not clamp to [floor, MaxRatioPPM]")
	}
}
