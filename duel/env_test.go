package duel

import (
	"errors"
	"testing"
)

// smallRule keeps hand-made sequences short. Its bounds at the looks used
// below, from the closed form at z = 1.96: 4/4 [0.5101, 1], 0/4 [0,
// 0.4899], 7/8 [0.529105, 0.9776], 8/8 [0.6756, 1], 6/12 [0.2538, 0.7462],
// 11/12 [0.6461, 0.9851].
var smallRule = Rule{ZMilli: 1960, Looks: []uint32{4, 8, 12}, MaxChallenges: 20}

func TestEnvStateSequences(t *testing.T) {
	cases := []struct {
		name  string
		ratio uint32
		seq   string
		// used is how many outcomes the state takes before deciding.
		used     int
		decision Decision
		reason   Reason
		looks    int
	}{
		{"4/4 is not enough, 8/8 is", 520000, "WWWWWWWWW", 8, Contender, ReasonBound, 2},
		{"0/4 keeps at the first look", 520000, "LLLLW", 4, Champion, ReasonBound, 1},
		{"draws do not advance the looks", 520000, "DWDWDWDWWWWWW", 12, Contender, ReasonBound, 2},
		{"undecided at the last look", 520000, "WLWLWLWLWLWLW", 12, Champion, ReasonLastLook, 3},
		{"too many draws", 520000, "DDDDDDDDDDDDDDDDDDDDW", 20, Champion, ReasonMaxChallenges, 0},
		{"7/8 clears 0.52", 520000, "WWWLWWWWW", 8, Contender, ReasonBound, 2},
		// lower = 529105 ppm exactly at 7/8: "exceeds" is strict.
		{"7/8 does not clear its own lower bound", 529105, "WWWLWWWWWWWWW", 12, Contender, ReasonBound, 3},
		{"7/8 clears one ppm below it", 529104, "WWWLWWWWW", 8, Contender, ReasonBound, 2},
		{"open after a partial sequence", 520000, "WWW", 3, Open, ReasonNone, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewEnvState(smallRule, c.ratio)
			if err != nil {
				t.Fatal(err)
			}
			used := 0
			for _, o := range []byte(c.seq) {
				if s.Decision() != Open {
					if err := s.Add(Outcome(o)); !errors.Is(err, ErrDecided) {
						t.Fatalf("Add after the decision: err %v, want ErrDecided", err)
					}
					break
				}
				if err := s.Add(Outcome(o)); err != nil {
					t.Fatal(err)
				}
				used++
			}
			if used != c.used || s.Decision() != c.decision || s.Reason() != c.reason || s.Looks() != c.looks {
				t.Fatalf("after %d outcomes: %v (%q) at %d looks; want %d outcomes, %v (%q) at %d looks",
					used, s.Decision(), s.Reason(), s.Looks(), c.used, c.decision, c.reason, c.looks)
			}
			if s.Challenges() != uint32(used) {
				t.Fatalf("Challenges() = %d, want %d", s.Challenges(), used)
			}
		})
	}
}

// The decision at a look is "lower > ratio" / "upper < ratio" on the
// recorded ppm bounds, so a record's bounds and decision always agree.
func TestEnvStateDecisionMatchesRecordedBounds(t *testing.T) {
	for _, seq := range []string{"WWWLWWWW", "LLLL", "WLLLWLLL", "WWWWWWWW"} {
		probe, _ := NewEnvState(smallRule, 520000)
		for _, o := range []byte(seq) {
			_ = probe.Add(Outcome(o))
		}
		lower, upper := probe.Bounds()
		for _, ratio := range []uint32{lower - 1, lower, lower + 1, upper - 1, upper, upper + 1} {
			if ratio == 0 || ratio >= PPM {
				continue
			}
			s, _ := NewEnvState(Rule{ZMilli: 1960, Looks: []uint32{uint32(len(seq)), 100}, MaxChallenges: 100}, ratio)
			for _, o := range []byte(seq) {
				if err := s.Add(Outcome(o)); err != nil {
					t.Fatal(err)
				}
			}
			want := Open
			switch {
			case lower > ratio:
				want = Contender
			case upper < ratio:
				want = Champion
			}
			if s.Decision() != want {
				t.Errorf("%s against %d: %v, but bounds [%d, %d] say %v", seq, ratio, s.Decision(), lower, upper, want)
			}
		}
	}
}

func TestEnvStateRejects(t *testing.T) {
	if _, err := NewEnvState(smallRule, 0); !errors.Is(err, ErrBadRatio) {
		t.Errorf("ratio 0: %v", err)
	}
	if _, err := NewEnvState(smallRule, PPM); !errors.Is(err, ErrBadRatio) {
		t.Errorf("ratio 1: %v", err)
	}
	s, _ := NewEnvState(smallRule, 520000)
	if err := s.Add('X'); err == nil {
		t.Error("outcome X accepted")
	}
	if s.Challenges() != 0 {
		t.Error("a rejected outcome was counted")
	}
}

func TestRuleValidate(t *testing.T) {
	if err := DefaultRule().Validate(); err != nil {
		t.Fatalf("default rule: %v", err)
	}
	bad := map[string]Rule{
		"z 0":                 {ZMilli: 0, Looks: []uint32{4}, MaxChallenges: 4},
		"z too large":         {ZMilli: MaxZMilli + 1, Looks: []uint32{4}, MaxChallenges: 4},
		"no looks":            {ZMilli: 1960, MaxChallenges: 4},
		"look at 0":           {ZMilli: 1960, Looks: []uint32{0, 4}, MaxChallenges: 4},
		"looks not rising":    {ZMilli: 1960, Looks: []uint32{4, 4}, MaxChallenges: 4},
		"cap below last look": {ZMilli: 1960, Looks: []uint32{4, 8}, MaxChallenges: 7},
		"look too large":      {ZMilli: 1960, Looks: []uint32{MaxLookSize + 1}, MaxChallenges: MaxChallengesCap},
		"too many looks":      EverySampleRule(1960, MaxLooks+1, MaxLooks+1),
	}
	for name, r := range bad {
		if err := r.Validate(); !errors.Is(err, ErrBadRule) {
			t.Errorf("%s: err %v, want ErrBadRule", name, err)
		}
	}
}

func TestRuleIsCopied(t *testing.T) {
	r := Rule{ZMilli: 1960, Looks: []uint32{4, 8}, MaxChallenges: 8}
	s, _ := NewEnvState(r, 520000)
	r.Looks[0] = 1
	_ = s.Add(Win)
	if s.Looks() != 0 {
		t.Fatal("editing the caller's rule changed a running test")
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		champion, contender int64
		want                Outcome
	}{{0, 1, Win}, {1, 0, Loss}, {1, 1, Draw}, {0, 0, Draw}, {-1, 0, Win}} {
		if got := Judge(c.champion, c.contender); got != c.want {
			t.Errorf("Judge(%d, %d) = %c, want %c", c.champion, c.contender, got, c.want)
		}
	}
}

func TestRatePPM(t *testing.T) {
	for _, c := range []struct{ w, l, want uint32 }{{0, 0, 500000}, {1, 2, 333333}, {2, 1, 666666}, {5, 0, PPM}, {0, 5, 0}} {
		if got := RatePPM(c.w, c.l); got != c.want {
			t.Errorf("RatePPM(%d, %d) = %d, want %d", c.w, c.l, got, c.want)
		}
	}
}
