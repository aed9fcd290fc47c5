package duel

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"os/exec"
	"testing"

	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/rng"
)

// Vector files of spec/duel.md. Each test writes what the code computes
// (compared byte for byte, or rewritten by `make vectors`) and then checks
// the file's entries against the code again, entry by entry.

type wilsonVectors struct {
	Note  string         `json:"note"`
	Cases []wilsonVector `json:"cases"`
}

type wilsonVector struct {
	Wins     uint32 `json:"wins"`
	N        uint32 `json:"n"`
	ZMilli   uint32 `json:"z_milli"`
	LowerPPM uint32 `json:"lower_ppm"`
	UpperPPM uint32 `json:"upper_ppm"`
}

func TestVectorsWilson(t *testing.T) {
	type wnz struct{ w, n, z uint32 }
	inputs := []wnz{{0, 0, 1960}, {0, 1, 1960}, {1, 1, 1960}, {0, 20, 1960}, {20, 20, 1960}, {81, 263, 1960}, {15, 148, 1960}, {1, 29, 1960},
		{7, 8, 1960}, {3, 4, 1960}, {200, 400, 1960}, {232, 400, 1960}, {5, 10, 1000}, {5, 10, 2576}, {1, 65536, 10000}, {65536, 65536, 1}}
	r := rng.New(rng.Derive([32]byte{}, "wilson vectors"))
	for range 16 {
		n := uint32(r.IntRange(1, 2000))
		inputs = append(inputs, wnz{uint32(r.IntRange(0, int64(n))), n, uint32(r.IntRange(500, 3500))})
	}
	file := wilsonVectors{Note: "Wilson bounds in ppm, rounded outward (spec/duel.md, Wilson bounds). Newcombe (1998) Table II's examples are among them."}
	for _, in := range inputs {
		l, u := Bounds(in.w, in.n, in.z)
		file.Cases = append(file.Cases, wilsonVector{in.w, in.n, in.z, l, u})
	}
	var back wilsonVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "duel-wilson.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Cases {
		if l, u := Bounds(c.Wins, c.N, c.ZMilli); l != c.LowerPPM || u != c.UpperPPM {
			t.Errorf("%d/%d z %d: [%d, %d], file says [%d, %d]", c.Wins, c.N, c.ZMilli, l, u, c.LowerPPM, c.UpperPPM)
		}
	}
}

type ruleVectors struct {
	Note  string       `json:"note"`
	Cases []ruleVector `json:"cases"`
}

type ruleVector struct {
	Rule     Rule   `json:"rule"`
	RatioPPM uint32 `json:"ratio_ppm"`
	// Outcomes are fed until the env decides; Used says how many it took.
	Outcomes string `json:"outcomes"`
	Used     uint32 `json:"used"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Looks    int    `json:"looks"`
	LowerPPM uint32 `json:"lower_ppm"`
	UpperPPM uint32 `json:"upper_ppm"`
}

func runRuleVector(rule Rule, ratio uint32, outcomes string) ruleVector {
	s, err := NewEnvState(rule, ratio)
	if err != nil {
		panic(err)
	}
	for _, o := range []byte(outcomes) {
		if s.Decision() != Open {
			break
		}
		if err := s.Add(Outcome(o)); err != nil {
			panic(err)
		}
	}
	l, u := s.Bounds()
	return ruleVector{rule, ratio, outcomes, s.Challenges(), s.Decision().String(), s.Reason().String(), s.Looks(), l, u}
}

func TestVectorsRule(t *testing.T) {
	file := ruleVectors{Note: "Per-env sequential decisions (spec/duel.md, The sequential rule): feed outcomes in order until the env decides."}
	for _, c := range []struct {
		ratio uint32
		seq   string
	}{
		{520000, "WWWWWWWWW"}, {520000, "LLLLW"}, {520000, "DWDWDWDWWWWWW"}, {520000, "WLWLWLWLWLWLW"},
		{520000, "DDDDDDDDDDDDDDDDDDDDW"}, {529105, "WWWLWWWWWWWWW"}, {529104, "WWWLWWWWW"}, {520000, "WWW"},
	} {
		file.Cases = append(file.Cases, runRuleVector(smallRule, c.ratio, c.seq))
	}
	// Long sequences under the default rule, at the rates of the
	// simulation (draw 0.2, then a win with probability rate).
	r := rng.New(rng.Derive([32]byte{}, "rule vectors"))
	for _, c := range []struct{ ratio, rate uint32 }{{520000, 600000}, {520000, 520000}, {600000, 700000}, {520000, 450000}, {800000, 800000}} {
		seq := make([]byte, 0, 2000)
		for len(seq) < 2000 {
			switch {
			case r.Chance(1, 5):
				seq = append(seq, 'D')
			case r.Chance(uint64(c.rate), PPM):
				seq = append(seq, 'W')
			default:
				seq = append(seq, 'L')
			}
		}
		v := runRuleVector(DefaultRule(), c.ratio, string(seq))
		v.Outcomes = v.Outcomes[:v.Used]
		file.Cases = append(file.Cases, v)
	}
	var back ruleVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "duel-rule.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for i, c := range back.Cases {
		if got := runRuleVector(c.Rule, c.RatioPPM, c.Outcomes); got.Used != c.Used || got.Decision != c.Decision || got.Reason != c.Reason ||
			got.Looks != c.Looks || got.LowerPPM != c.LowerPPM || got.UpperPPM != c.UpperPPM {
			t.Errorf("case %d: code gives %+v", i, got)
		}
	}
}

type ratioVectors struct {
	Note    string         `json:"note"`
	Params  FrontierParams `json:"params"`
	Decay   []decayVector  `json:"decay"`
	RatioAt []ratioAtV     `json:"ratio_at"`
	GeoMean []geoMeanV     `json:"geomean"`
}

type decayVector struct {
	Excess   uint64 `json:"excess"`
	Elapsed  uint64 `json:"elapsed"`
	HalfLife uint64 `json:"half_life"`
	Result   uint64 `json:"result"`
}

type ratioAtV struct {
	SetPPM   uint32 `json:"set_ppm"`
	Elapsed  uint64 `json:"elapsed"`
	RatioPPM uint32 `json:"ratio_ppm"`
}

type geoMeanV struct {
	RatesPPM   []uint32 `json:"rates_ppm"`
	GeoMeanPPM uint32   `json:"geomean_ppm"`
	// NextPPM is the ratio a winner with these rates sets (clamped).
	NextPPM uint32 `json:"next_ppm"`
}

func TestVectorsRatio(t *testing.T) {
	p := DefaultFrontierParams()
	file := ratioVectors{Note: "Ratio to beat (spec/duel.md): exact floors of the decay and the geometric mean.", Params: p}
	r := rng.New(rng.Derive([32]byte{}, "ratio vectors"))
	decays := [][3]uint64{{100000, 50, 100}, {3, 1, 2}, {479999, 7200, 7200}, {600000, 19 * 7200, 7200}, {1, 1, 7200}, {1000, 7200, 7200}}
	for range 12 {
		h := uint64(r.IntRange(1, 9000))
		decays = append(decays, [3]uint64{uint64(r.IntRange(1, 479999)), uint64(r.IntRange(0, int64(21*h))), h})
	}
	for _, d := range decays {
		file.Decay = append(file.Decay, decayVector{d[0], d[1], d[2], DecayFloor(d[0], d[1], d[2])})
	}
	for _, a := range []struct {
		set     uint32
		elapsed uint64
	}{{800000, 0}, {800000, 1}, {800000, 3600}, {800000, 7200}, {999999, 50000}, {999999, 200000}, {530000, 7199}, {400000, 10}} {
		file.RatioAt = append(file.RatioAt, ratioAtV{a.set, a.elapsed, p.RatioAt(a.set, a.elapsed)})
	}
	for _, rates := range [][]uint32{{600000, 600000, 600000}, {500000, 800000}, {700000, 650000, 500000}, {990000, 1000000, 1000000}, {0, 900000, 900000}, {300000, 400000, 450000}, {2, 3, 4}} {
		g := GeoMeanPPM(rates)
		file.GeoMean = append(file.GeoMean, geoMeanV{rates, g, p.NextRatio(g)})
	}
	var back ratioVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "duel-ratio.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, d := range back.Decay {
		if got := DecayFloor(d.Excess, d.Elapsed, d.HalfLife); got != d.Result {
			t.Errorf("decay %+v: code gives %d", d, got)
		}
		if f := float64(d.Excess) * math.Exp2(-float64(d.Elapsed)/float64(d.HalfLife)); math.Abs(f-float64(d.Result)) >= 1.0001 {
			t.Errorf("decay %+v is not near the real value %.3f", d, f)
		}
	}
	for _, a := range back.RatioAt {
		if got := back.Params.RatioAt(a.SetPPM, a.Elapsed); got != a.RatioPPM {
			t.Errorf("ratio_at %+v: code gives %d", a, got)
		}
	}
	for _, g := range back.GeoMean {
		if got := GeoMeanPPM(g.RatesPPM); got != g.GeoMeanPPM || back.Params.NextRatio(got) != g.NextPPM {
			t.Errorf("geomean %+v: code gives %d", g, got)
		}
	}
}

type recordVectors struct {
	Note    string         `json:"note"`
	Records []recordVector `json:"records"`
}

type recordVector struct {
	Label  string `json:"label"`
	Result Result `json:"result"`
	CBOR   string `json:"cbor"`
	CID    string `json:"cid"`
}

func TestVectorsRecords(t *testing.T) {
	file := recordVectors{Note: "Duel results (spec/duel.md, Decision records): the record as JSON, its DAG-CBOR bytes and CID. Recomputing from each env's challenges and outcomes gives every other field."}
	for _, s := range vectorDuels {
		r := recomputed(t, s)
		b, c, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		file.Records = append(file.Records, recordVector{s.label, r, hex.EncodeToString(b), c.String()})
	}
	var back recordVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "duel-records.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, v := range back.Records {
		want, _ := hex.DecodeString(v.CBOR)
		if _, err := Decode(want); err != nil {
			t.Errorf("%s: the file's bytes do not decode: %v", v.Label, err)
		}
		b, c, err := Encode(v.Result)
		if err != nil {
			t.Errorf("%s: the file's JSON record does not verify: %v", v.Label, err)
			continue
		}
		if !bytes.Equal(b, want) || c.String() != v.CID {
			t.Errorf("%s: JSON record encodes to other bytes or CID", v.Label)
		}
	}
}

// TestSpecReimplementation runs testdata/speccheck.py, a reimplementation
// of spec/duel.md in Python written from the document alone, against the
// vector files: the spec, not just this code, produces the vectors.
func TestSpecReimplementation(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	out, err := exec.Command(python, "testdata/speccheck.py").CombinedOutput()
	if err != nil {
		t.Fatalf("speccheck.py: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("records ok")) || !bytes.Contains(out, []byte("adopt ok")) {
		t.Fatalf("speccheck.py did not finish:\n%s", out)
	}
}

type adoptVectors struct {
	Note    string         `json:"note"`
	Params  FrontierParams `json:"params"`
	Records []adoptVector  `json:"records"`
}

type adoptVector struct {
	Label string `json:"label"`
	// Source is the CID of SourceResult, the duel result adopted from.
	Source       string `json:"source"`
	SourceResult Result `json:"source_result"`
	Adopt        Adopt  `json:"adopt"`
	CBOR         string `json:"cbor"`
	CID          string `json:"cid"`
}

func TestVectorsAdopt(t *testing.T) {
	p := DefaultFrontierParams()
	file := adoptVectors{
		Note:   "Adoption records (spec/duel.md, Adoption records): the adoption of the champion each duel of duel-records.json that the contender won crowned, by a validator that takes it from validator `from`'s chain; the record as JSON, its DAG-CBOR bytes and CID.",
		Params: p,
	}
	from, err := keys.FromURI("//Bob")
	if err != nil {
		t.Fatal(err)
	}
	// The contender's wins among the record vectors, one whose rates put
	// the ratio at its ceiling, and one whose lost env puts it at the
	// floor.
	duels := append(append([]scripted(nil), vectorDuels...), tinyDuels[0], scripted{
		label: "one env lost outright", rule: Rule{ZMilli: 1960, Looks: []uint32{8}, MaxChallenges: 8}, ratio: 520000,
		envs: []string{"a", "b", "c"}, rates: []uint32{PPM, PPM, 0}, draws: []uint32{0, 0, 0},
	})
	for _, s := range duels {
		r := recomputed(t, s)
		_, c, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Winner != Contender.String() {
			continue
		}
		a, err := NewAdopt(p, from.Public(), c, r)
		if err != nil {
			t.Fatal(err)
		}
		b, ac, err := EncodeAdopt(a)
		if err != nil {
			t.Fatal(err)
		}
		file.Records = append(file.Records, adoptVector{"adopt: " + s.label, c.String(), r, a, hex.EncodeToString(b), ac.String()})
	}
	if n := len(file.Records); n != 3 || file.Records[1].Adopt.SetPPM != MaxRatioPPM || file.Records[2].Adopt.SetPPM != p.Floor() {
		t.Fatalf("%d adoptions; want 3, the second at the ceiling and the third at the floor", n)
	}
	var back adoptVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "duel-adopt.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for _, v := range back.Records {
		want, _ := hex.DecodeString(v.CBOR)
		a, err := DecodeAdopt(want)
		if err != nil {
			t.Errorf("%s: the file's bytes do not decode: %v", v.Label, err)
			continue
		}
		if _, c, err := Encode(v.SourceResult); err != nil || c.String() != v.Source {
			t.Errorf("%s: the source result does not verify or is not %s (%v)", v.Label, v.Source, err)
		}
		if err := a.CheckSource(back.Params, v.SourceResult); err != nil || a.Source.Cid.String() != v.Source {
			t.Errorf("%s: the record does not follow from its source %s: %v", v.Label, v.Source, err)
		}
		b, c, err := EncodeAdopt(v.Adopt)
		if err != nil || !bytes.Equal(b, want) || c.String() != v.CID {
			t.Errorf("%s: JSON record encodes to other bytes or CID (%v)", v.Label, err)
		}
	}
}
