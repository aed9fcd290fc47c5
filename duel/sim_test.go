package duel

import (
	"crypto/sha256"
	"math"
	"reflect"
	"strings"
	"testing"
)

func simConfig(duels int, seed string) SimConfig {
	return SimConfig{Rule: DefaultRule(), Fixed: FixedRule{Challenges: 400, ZMilli: 1960}, Duels: duels, Seed: sha256.Sum256([]byte(seed))}
}

func rates3(r uint32) []uint32 { return []uint32{r, r, r} }

// The statistical acceptance test of spec/duel.md on 2,000 duels per case
// with a fixed seed: at the boundary the simulated false-dethrone rate is
// at most 5% and within 4 standard errors of the exact probability; a
// contender at 0.7 nearly always wins.
func TestSimulationMeetsTargets(t *testing.T) {
	t.Parallel()
	const duels = 2000
	cases := []Case{
		{RatioPPM: 520000, RatesPPM: rates3(520000)},
		{RatioPPM: 600000, RatesPPM: rates3(600000)},
		{RatioPPM: 520000, RatesPPM: rates3(700000)},
		{RatioPPM: 520000, RatesPPM: rates3(600000)},
	}
	res, err := Simulate(simConfig(duels, "acceptance"), cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res[:2] {
		got, exact := r.Sequential.DethroneRate, r.Exact.Dethrone
		tol := 4 * math.Sqrt(exact*(1-exact)/duels)
		if got > MaxFalseDethrone || math.Abs(got-exact) > tol {
			t.Errorf("%s: dethroned %.4f, exact %.4f (tolerance %.4f, limit %.2f)", r.Case.Label(), got, exact, tol, MaxFalseDethrone)
		}
	}
	if strong := res[2].Sequential.DethroneRate; strong < 0.99 {
		t.Errorf("a contender at 0.7 won only %.4f of duels", strong)
	}
	// Power and cost at 0.6 against the floor: the exact figures are
	// 0.987 and 351 challenges; the fixed rule's power is about 0.97.
	at06 := res[3]
	if at06.Sequential.DethroneRate < at06.Fixed.DethroneRate-0.01 || at06.MeanRatio > MaxMeanRatio {
		t.Errorf("at 0.6: power %.4f vs fixed %.4f, mean ratio %.3f", at06.Sequential.DethroneRate, at06.Fixed.DethroneRate, at06.MeanRatio)
	}
	if math.Abs(at06.Sequential.MeanChallenges-at06.Exact.Mean) > 0.05*at06.Exact.Mean {
		t.Errorf("at 0.6: mean challenges %.1f, exact %.1f", at06.Sequential.MeanChallenges, at06.Exact.Mean)
	}
}

// Draws do not count toward the win rate: at the boundary they leave the
// error rate where it was and stretch the challenges by about 1/(1-draw).
func TestSimulationWithDraws(t *testing.T) {
	t.Parallel()
	const duels = 1500
	res, err := Simulate(simConfig(duels, "draws"), []Case{
		{RatioPPM: 520000, RatesPPM: rates3(600000)},
		{RatioPPM: 520000, RatesPPM: rates3(600000), DrawPPM: 500000},
		{RatioPPM: 520000, RatesPPM: rates3(520000), DrawPPM: 500000},
	})
	if err != nil {
		t.Fatal(err)
	}
	stretch := res[1].Sequential.MeanChallenges / res[0].Sequential.MeanChallenges
	if stretch < 1.8 || stretch > 2.2 {
		t.Errorf("half the challenges drawn stretched the mean by %.2f, want about 2", stretch)
	}
	if res[1].Exact != nil {
		t.Error("exact law reported for a case with draws")
	}
	if r := res[2].Sequential.DethroneRate; r > MaxFalseDethrone {
		t.Errorf("boundary with draws: dethroned %.4f", r)
	}
}

func TestSimulationIsDeterministic(t *testing.T) {
	t.Parallel()
	cases := []Case{{RatioPPM: 520000, RatesPPM: rates3(550000)}, {RatioPPM: 600000, RatesPPM: []uint32{700000, 500000}, DrawPPM: 100000}}
	cfg := simConfig(300, "same")
	every := EverySampleRule(1960, 400, 2000)
	cfg.EverySample = &every
	cfg.Workers = 1
	a, err := Simulate(cfg, cases)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 3
	b, _ := Simulate(cfg, cases)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("results depend on the number of workers")
	}
	cfg.Seed[0] ^= 1
	c, _ := Simulate(cfg, cases)
	if reflect.DeepEqual(a, c) {
		t.Fatal("another seed gave the same results")
	}
}

func TestSimulateRejects(t *testing.T) {
	good := []Case{{RatioPPM: 520000, RatesPPM: rates3(520000)}}
	cfg := simConfig(10, "x")
	bad := map[string]func() (SimConfig, []Case){
		"no duels":      func() (SimConfig, []Case) { c := cfg; c.Duels = 0; return c, good },
		"bad rule":      func() (SimConfig, []Case) { c := cfg; c.Rule.ZMilli = 0; return c, good },
		"bad fixed":     func() (SimConfig, []Case) { c := cfg; c.Fixed.Challenges = 0; return c, good },
		"ratio 0":       func() (SimConfig, []Case) { return cfg, []Case{{RatesPPM: rates3(1)}} },
		"no envs":       func() (SimConfig, []Case) { return cfg, []Case{{RatioPPM: 520000}} },
		"rate above 1":  func() (SimConfig, []Case) { return cfg, []Case{{RatioPPM: 520000, RatesPPM: rates3(PPM + 1)}} },
		"always a draw": func() (SimConfig, []Case) { return cfg, []Case{{RatioPPM: 520000, RatesPPM: rates3(1), DrawPPM: PPM}} },
	}
	for name, f := range bad {
		if _, err := Simulate(f()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestStandardCases(t *testing.T) {
	cases := StandardCases(520000, 600000, 0, 3)
	var labels []string
	boundary := 0
	for _, c := range cases {
		labels = append(labels, c.Label())
		if c.Boundary() {
			boundary++
		}
	}
	want := []string{
		"ratio 0.520 rates 0.520/0.520/0.520 draws 0.000",
		"ratio 0.520 rates 0.500/0.500/0.500 draws 0.000",
		"ratio 0.520 rates 0.550/0.550/0.550 draws 0.000",
		"ratio 0.520 rates 0.600/0.600/0.600 draws 0.000",
		"ratio 0.520 rates 0.700/0.700/0.700 draws 0.000",
		"ratio 0.600 rates 0.600/0.600/0.600 draws 0.000",
		"ratio 0.600 rates 0.500/0.500/0.500 draws 0.000",
		"ratio 0.600 rates 0.550/0.550/0.550 draws 0.000",
		"ratio 0.600 rates 0.700/0.700/0.700 draws 0.000",
		"ratio 0.520 rates 0.700/0.520/0.520 draws 0.000",
	}
	if !reflect.DeepEqual(labels, want) || boundary != 2 {
		t.Fatalf("cases:\n%s", strings.Join(labels, "\n"))
	}
}

func TestCheckTargets(t *testing.T) {
	boundary := func(ratio uint32, rate float64) CaseResult {
		return CaseResult{Case: Case{RatioPPM: ratio, RatesPPM: rates3(ratio)}, Boundary: true, Sequential: RuleStats{DethroneRate: rate}}
	}
	power := func(seq, fixed, ratio float64) CaseResult {
		return CaseResult{Case: Case{RatioPPM: 520000, RatesPPM: rates3(600000)}, Sequential: RuleStats{DethroneRate: seq}, Fixed: RuleStats{DethroneRate: fixed}, MeanRatio: ratio}
	}
	pass := func(ts []Target) []bool {
		var out []bool
		for _, t := range ts {
			out = append(out, t.Pass)
		}
		return out
	}
	cases := []struct {
		results []CaseResult
		want    []bool
	}{
		{[]CaseResult{boundary(520000, 0.04), boundary(600000, 0.03), power(0.98, 0.97, 0.3)}, []bool{true, true, true, true}},
		{[]CaseResult{boundary(520000, 0.051), power(0.98, 0.97, 0.3)}, []bool{false, true, true}},
		{[]CaseResult{boundary(520000, 0.04), power(0.96, 0.97, 0.3)}, []bool{true, false, true}},
		{[]CaseResult{boundary(520000, 0.04), power(0.98, 0.97, 0.34)}, []bool{true, true, false}},
		{[]CaseResult{power(0.98, 0.97, 0.3)}, []bool{false, true, true}},
		{[]CaseResult{boundary(520000, 0.04)}, []bool{true, false, false}},
	}
	for i, c := range cases {
		targets := CheckTargets(c.results, 520000)
		if got := pass(targets); !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: passes %v, want %v", i, got, c.want)
		}
		for _, tg := range targets {
			if !tg.Checked {
				t.Errorf("case %d: %s unchecked without draws", i, tg.Name)
			}
		}
	}
	withDraws := power(0.98, 0.6, 0.5)
	withDraws.Case.DrawPPM = 500000
	for _, tg := range CheckTargets([]CaseResult{boundary(520000, 0.04), withDraws}, 520000)[1:] {
		if tg.Checked {
			t.Errorf("%s checked with draws", tg.Name)
		}
	}
}

func TestPPMText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{{"0", 0}, {"1", PPM}, {"0.02", 20000}, {"0.6", 600000}, {"0.000001", 1}, {"1.000000", PPM}, {"00.5", 500000}} {
		got, err := ParsePPM(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParsePPM(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", ".5", "0.", "1.5", "2", "-0.1", "0.1234567", "0,5", "1e-3", " 0.5", "1.000001"} {
		if _, err := ParsePPM(bad); err == nil {
			t.Errorf("ParsePPM(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		in   uint32
		want string
	}{{520000, "0.520"}, {1, "0.000001"}, {PPM, "1.000"}, {0, "0.000"}, {123456, "0.123456"}} {
		if got := FormatPPM(c.in); got != c.want {
			t.Errorf("FormatPPM(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}
