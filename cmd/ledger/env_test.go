package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const testSeed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// runCLI runs the binary's command tree in-process and returns stdout and the exit code.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	if code == exitUsage && errOut.Len() == 0 {
		t.Errorf("%v: exit 2 without a message on stderr", args)
	}
	return out.String(), code
}

func TestEnvTestScoresMult8(t *testing.T) {
	out, code := runCLI(t, "env", "test", "--env", "mult8", "--seed", testSeed, "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		ChallengeID string `json:"challenge_id"`
		Env         string `json:"env"`
		Version     int    `json:"version"`
		Messages    []struct{ Role, Content string }
		Info        map[string]any `json:"info"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.ChallengeID != "mult8.v1."+testSeed || res.Env != "mult8" || res.Version != 1 || len(res.Messages) != 2 {
		t.Fatalf("unexpected output: %s", out)
	}
	a, b := int64(res.Info["a"].(float64)), int64(res.Info["b"].(float64))
	if !strings.Contains(res.Messages[1].Content, fmt.Sprint(a)) {
		t.Fatalf("prompt does not show %d: %q", a, res.Messages[1].Content)
	}
	for answer, want := range map[string]float64{
		fmt.Sprint(a * b):                         1,
		fmt.Sprintf("<answer>%d</answer>", a*b+1): 0,
		"no idea": 0,
	} {
		out, code := runCLI(t, "env", "test", "--challenge", res.ChallengeID, "--answer", answer, "--json")
		if code != exitOK {
			t.Fatalf("exit %d", code)
		}
		var scored struct {
			Score  *float64 `json:"score"`
			Reason string   `json:"reason"`
		}
		json.Unmarshal([]byte(out), &scored)
		if scored.Score == nil || *scored.Score != want || scored.Reason == "" {
			t.Errorf("answer %q: score %v reason %q, want %v", answer, scored.Score, scored.Reason, want)
		}
	}
}

func TestEnvTestRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"env", "test"},
		{"env", "test", "--env", "chess", "--seed", testSeed},
		{"env", "test", "--env", "mult8", "--seed", "xyz"},
		{"env", "test", "--challenge", "mult8.v9." + testSeed},
		{"env", "test", "--challenge", "mult8.v1." + testSeed, "--env", "mult8"},
		{"env", "test", "--nope"},
	} {
		if _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestEnvListNamesEveryEnv(t *testing.T) {
	out, code := runCLI(t, "env", "list", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"mult8", "tictactoe", "sat", "abd", "coin"} {
		if !strings.Contains(out, `"name": "`+name+`"`) {
			t.Errorf("env list lacks %s", name)
		}
	}
}

func TestDemoScoresEveryEnv(t *testing.T) {
	out, code := runCLI(t, "demo")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "--- reference solver"); n != 5 {
		t.Fatalf("demo played %d envs, want 5:\n%s", n, out)
	}
	if !strings.Contains(out, "reward 1 (correct)") {
		t.Fatalf("demo shows no correct answer:\n%s", out)
	}
}

// TestEnvTestNamesAnswer: answers the episode cannot take (more than its
// turns) are bad usage naming --answer, not a bare "replay ..." error.
func TestEnvTestNamesAnswer(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run([]string{"env", "test", "--env", "mult8", "--seed", testSeed, "--answer", "<answer>1</answer>", "--answer", "2"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--answer: ") {
		t.Errorf("two answers to a one-turn env: exit %d, %q; want exit 2 naming --answer", code, errOut.String())
	}
}
