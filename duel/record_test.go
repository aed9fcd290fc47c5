package duel

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

func recomputed(t testing.TB, s scripted) Result {
	t.Helper()
	r, err := Recompute(s.input(t))
	if err != nil {
		t.Fatalf("%s: %v", s.label, err)
	}
	return r
}

func TestRecordRoundTrip(t *testing.T) {
	for _, s := range vectorDuels {
		r := recomputed(t, s)
		b, c, err := Encode(r)
		if err != nil {
			t.Fatalf("%s: %v", s.label, err)
		}
		if !c.Equals(codec.Sum(b)) {
			t.Fatalf("%s: CID %s is not the hash of the bytes", s.label, c)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: decode: %v", s.label, err)
		}
		again, _, err := Encode(back)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%s: re-encoding differs (%v)", s.label, err)
		}
		if back.Winner != r.Winner || back.Envs[1].Challenges[0] != r.Envs[1].Challenges[0] || back.Contender.Hotkey != r.Contender.Hotkey {
			t.Fatalf("%s: decoded record lost data", s.label)
		}
	}
}

// The duels behind the vectors tell the stories their labels promise, so
// the vectors cover both winners, early stops and every reason.
func TestVectorDuelsCoverTheRule(t *testing.T) {
	won := recomputed(t, vectorDuels[0])
	if won.Winner != "contender" || won.EnvsWon != 2 || won.Envs[2].Decision != "open" || won.Envs[1].Draws != 0 || won.Envs[0].Draws == 0 {
		t.Errorf("contender vector: winner %s, envs won %d, sat %s", won.Winner, won.EnvsWon, won.Envs[2].Decision)
	}
	kept := recomputed(t, vectorDuels[1])
	reasons := map[string]bool{}
	for _, e := range kept.Envs {
		reasons[e.Reason] = true
	}
	if kept.Winner != "champion" || !reasons["max_challenges"] || !reasons["bound"] {
		t.Errorf("champion vector: winner %s, reasons %v", kept.Winner, reasons)
	}
}

func TestRecomputeMatchesIncrementalDuel(t *testing.T) {
	for _, s := range vectorDuels {
		in := s.input(t)
		r := recomputed(t, s)
		d, _ := NewDuel(s.rule, s.ratio, s.envs)
		for i, e := range in.Envs {
			for _, smp := range e.Samples {
				if err := d.AddAt(i, smp.Outcome); err != nil {
					t.Fatal(err)
				}
			}
		}
		if d.Winner().String() != r.Winner {
			t.Fatalf("%s: record says %s, duel says %v", s.label, r.Winner, d.Winner())
		}
		for i := range r.Envs {
			lower, upper := d.State(i).Bounds()
			if r.Envs[i].LowerPPM != lower || r.Envs[i].UpperPPM != upper {
				t.Fatalf("%s: env %d bounds differ", s.label, i)
			}
		}
	}
}

// Every derived field is checked: changing any of them, or the outcomes
// they derive from, makes the record invalid, and the error names the
// field.
func TestDecodeRejectsAlteredRecords(t *testing.T) {
	base := recomputed(t, vectorDuels[0])
	clone := func() Result {
		in, err := base.Input()
		if err != nil {
			t.Fatal(err)
		}
		r, err := Recompute(in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		name  string
		edit  func(r *Result)
		error string
	}{
		{"wins", func(r *Result) { r.Envs[0].Wins++ }, "wins is"},
		{"draws", func(r *Result) { r.Envs[1].Draws++ }, "draws is"},
		{"lower bound", func(r *Result) { r.Envs[0].LowerPPM-- }, "lower_ppm is"},
		{"upper bound", func(r *Result) { r.Envs[0].UpperPPM++ }, "upper_ppm is"},
		{"rate", func(r *Result) { r.Envs[2].RatePPM++ }, "rate_ppm is"},
		{"decision", func(r *Result) { r.Envs[2].Decision = "champion" }, "decision is"},
		{"reason", func(r *Result) { r.Envs[0].Reason = "last_look" }, "reason is"},
		{"looks", func(r *Result) { r.Envs[0].Looks++ }, "looks is"},
		{"winner", func(r *Result) { r.Winner = "champion" }, "winner is"},
		{"envs won", func(r *Result) { r.EnvsWon = 3 }, "envs_won is"},
		{"geomean", func(r *Result) { r.GeoMeanPPM++ }, "geomean_ppm is"},
		{"flipped outcome", func(r *Result) { r.Envs[0].Outcomes = flipFirst(r.Envs[0].Outcomes, 'W', 'L') }, "is"},
		{"unknown outcome letter", func(r *Result) { r.Envs[0].Outcomes = "X" + r.Envs[0].Outcomes[1:] }, "want W, L or D"},
		{"outcome missing", func(r *Result) { r.Envs[0].Outcomes = r.Envs[0].Outcomes[1:] }, "outcomes for"},
		{"challenge after the env was decided", func(r *Result) {
			e := &r.Envs[0]
			id := e.Challenges[0]
			id.Seed[0] ^= 0xff
			e.Challenges = append(e.Challenges, id)
			e.Outcomes += "W"
		}, "already decided"},
		{"challenge answered twice", func(r *Result) { r.Envs[2].Challenges[1] = r.Envs[2].Challenges[0] }, "already answered"},
		{"challenge of another env", func(r *Result) { r.Envs[2].Challenges[0] = r.Envs[0].Challenges[0] }, "is of env"},
		{"same hotkey twice", func(r *Result) { r.Contender.Hotkey = r.Champion.Hotkey }, "same hotkey"},
		{"long model hash", func(r *Result) { r.Champion.ModelHash = make(HexBytes, MaxModelHash+1) }, "model hash"},
		{"unsorted envs", func(r *Result) { r.Envs[0], r.Envs[1] = r.Envs[1], r.Envs[0] }, "sorted"},
		{"bad rule", func(r *Result) { r.Rule.Looks = nil }, "looks"},
		{"ratio of 1", func(r *Result) { r.RatioPPM = PPM }, "ratio"},
		{"type", func(r *Result) { r.Type = "weights" }, "type"},
		{"version", func(r *Result) { r.Version = 2 }, "version"},
		{"undecided", func(r *Result) {
			for i := range r.Envs {
				r.Envs[i].Challenges, r.Envs[i].Outcomes = r.Envs[i].Challenges[:1], r.Envs[i].Outcomes[:1]
			}
		}, "not decided"},
	}
	for _, c := range cases {
		r := clone()
		c.edit(&r)
		b, err := codec.Marshal(r)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = Decode(b)
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUndecided) {
			t.Errorf("%s: err %v, want ErrMalformed", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.error) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.error)
		}
		if _, _, err := Encode(r); err == nil {
			t.Errorf("%s: Encode accepted the altered record", c.name)
		}
	}
}

func flipFirst(s string, from, to byte) string {
	i := strings.IndexByte(s, from)
	return s[:i] + string(to) + s[i+1:]
}

func TestDecodeRejectsNonCanonicalBytes(t *testing.T) {
	good, _, err := Encode(recomputed(t, vectorDuels[1]))
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := codec.Unmarshal(good, &generic); err != nil {
		t.Fatal(err)
	}
	generic["zzz"] = uint64(1)
	unknown, err := codec.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"trailing byte": append(append([]byte{}, good...), 0),
		"unknown field": unknown,
		"truncated":     good[:len(good)-1],
		"empty":         nil,
		"too large":     make([]byte, MaxResultBytes+1),
	}
	for name, b := range cases {
		if _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
}

func TestRecomputeNeedsADecision(t *testing.T) {
	in := vectorDuels[0].input(t)
	for i := range in.Envs {
		in.Envs[i].Samples = in.Envs[i].Samples[:3]
	}
	if _, err := Recompute(in); !errors.Is(err, ErrUndecided) {
		t.Fatalf("err %v, want ErrUndecided", err)
	}
}

// tinyDuels are seeds small enough for the fuzzer to mutate well: with a
// record of several kilobytes each new input costs it a long minimization.
var tinyDuels = []scripted{
	{label: "tiny win", rule: Rule{ZMilli: 1000, Looks: []uint32{2}, MaxChallenges: 3}, ratio: 520000,
		envs: []string{"a"}, rates: []uint32{PPM}, draws: []uint32{0}},
	{label: "tiny loss", rule: Rule{ZMilli: 1000, Looks: []uint32{1, 2}, MaxChallenges: 3}, ratio: 520000,
		envs: []string{"a", "b"}, rates: []uint32{0, 0}, draws: []uint32{300000, 0}},
}

func FuzzDecode(f *testing.F) {
	for _, s := range tinyDuels {
		b, _, err := Encode(recomputed(f, s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		again, _, err := Encode(r)
		if err != nil {
			t.Fatalf("decoded record does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes that are not the record's encoding")
		}
	})
}
