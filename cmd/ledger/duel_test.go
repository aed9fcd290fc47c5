package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runDuelSim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"duel", "simulate"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestDuelSimulateJSON(t *testing.T) {
	out, _, code := runDuelSim(t, "--json", "--duels", "300", "--seed", "cli", "--workers", "2")
	var rep struct {
		Duels int `json:"duels"`
		Cases []struct {
			Boundary   bool `json:"boundary"`
			Sequential struct {
				DethroneRate   float64 `json:"dethrone_rate"`
				MeanChallenges float64 `json:"mean_challenges"`
			} `json:"sequential"`
			Fixed struct {
				MeanChallenges float64 `json:"mean_challenges"`
			} `json:"fixed"`
			EverySample *struct{} `json:"every_sample"`
		} `json:"cases"`
		Targets []struct {
			Pass bool `json:"pass"`
		} `json:"targets"`
		Pass bool `json:"pass"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Duels != 300 || len(rep.Cases) != 10 || !rep.Cases[0].Boundary || len(rep.Targets) != 4 || rep.Cases[0].EverySample == nil {
		t.Fatalf("unexpected report: %s", out)
	}
	if want := map[bool]int{true: exitOK, false: exitCheckFail}[rep.Pass]; code != want {
		t.Fatalf("pass %v but exit %d", rep.Pass, code)
	}
	if rep.Cases[0].Fixed.MeanChallenges != 1200 {
		t.Fatalf("fixed rule used %.0f challenges, want 3 x 400", rep.Cases[0].Fixed.MeanChallenges)
	}
	again, _, _ := runDuelSim(t, "--json", "--duels", "300", "--seed", "cli", "--workers", "1")
	if again != out {
		t.Fatal("same seed, different output")
	}
	other, _, _ := runDuelSim(t, "--json", "--duels", "300", "--seed", "other", "--workers", "1")
	if other == out {
		t.Fatal("another seed, same output")
	}
}

func TestDuelSimulateText(t *testing.T) {
	out, stderr, code := runDuelSim(t, "--duels", "200", "--every-sample=false")
	if code != exitOK && code != exitCheckFail {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "targets:") || strings.Count(out, "(boundary)") != 2 || strings.Contains(out, "every:") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if !strings.Contains(stderr, "10 cases in") {
		t.Fatalf("no timing on stderr: %q", stderr)
	}
}

// With the floor at 0.6 the "0.6 against the floor" case is a boundary
// case: the sequential rule cannot stop early there, so the cost target
// fails and the command exits 1.
func TestDuelSimulateMissedTargetExits1(t *testing.T) {
	out, stderr, code := runDuelSim(t, "--duels", "200", "--epsilon", "0.1", "--every-sample=false")
	if code != exitCheckFail || !strings.Contains(stderr, "targets missed: mean challenges") || !strings.Contains(out, "FAIL mean challenges") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestDuelSimulateBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--draw", "1"}, {"--draw", "abc"}, {"--envs", "0"}, {"--envs", "33"}, {"--duels", "0"},
		{"--epsilon", "0.5"}, {"--high", "1"}, {"--high", "0"}, {"extra"},
	} {
		_, stderr, code := runDuelSim(t, args...)
		if code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestDuelSimulateRefusesImpossibleFlags: a negative --workers was taken
// as 0 (one per CPU), and a --high below the floor (0.5 + --epsilon), a
// ratio to beat the rule never runs against, ran and exited 1 as a missed
// target; both are bad usage naming the flag.
func TestDuelSimulateRefusesImpossibleFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--high", "0.5"}, "--high 0.5"},
		{[]string{"--epsilon", "0.2"}, "--high 0.6"}, // the default --high, below the floor 0.7
	} {
		out, stderr, code := runDuelSim(t, append(tc.args, "--duels", "20")...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %.40q, stderr %q; want exit 2 naming %q", tc.args, code, out, stderr, tc.want)
		}
	}
}
