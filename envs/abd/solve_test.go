package abd

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestSolveScoresOnManyIDs(t *testing.T) {
	t.Parallel()
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, id := range envtest.IDs(Factory, n) {
		msgs, _, _ := Factory.New().Reset(id)
		answer, ok := Solve(msgs)
		if !ok {
			t.Fatalf("%s: Solve did not answer", id)
		}
		ep, err := envs.Replay(Factory, id, []string{answer})
		if err != nil || ep.Reward != 1 {
			t.Fatalf("%s: Solve's %s scored %d (%s), %v", id, answer, ep.Reward, ep.Reason, err)
		}
	}
}

func TestWrongScoresZero(t *testing.T) {
	t.Parallel()
	r := rng.New(rng.Derive([32]byte{}, "abd wrong test"))
	differs := 0
	ids := envtest.IDs(Factory, 1000)
	for _, id := range ids {
		msgs, _, _ := Factory.New().Reset(id)
		answer, ok := Wrong(msgs, r)
		if !ok {
			t.Fatalf("%s: Wrong did not recognise the prompt", id)
		}
		if l, found := extract(envs.Clean(answer)); !found || l.outOfRange != "" || !strings.HasPrefix(answer, "<answer>[") {
			t.Fatalf("%s: Wrong answer %q is not a well-formed list", id, answer)
		}
		ep, err := envs.Replay(Factory, id, []string{answer})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Reward != 0 {
			t.Fatalf("%s: Wrong answer %q scored %d (%s)", id, answer, ep.Reward, ep.Reason)
		}
		if strings.HasPrefix(ep.Reason, "output differs: ") {
			differs++
		}
	}
	// Near misses: almost all run and give a different output.
	if differs < len(ids)*95/100 {
		t.Errorf("only %d of %d wrong answers were near misses", differs, len(ids))
	}
}

func TestSolveRefusesOtherPrompts(t *testing.T) {
	t.Parallel()
	id := envtest.IDs(Factory, 1)[0]
	msgs, _, _ := Factory.New().Reset(id)
	prompt := msgs[1].Content
	for name, conv := range map[string][]envs.Message{
		"mult8": {
			{Role: envs.RoleSystem, Content: "You are a careful calculator."},
			{Role: envs.RoleUser, Content: "What is 12345678 multiplied by 87654321? Give the exact product inside <answer></answer> tags."},
		},
		"sat":               {{Role: envs.RoleUser, Content: "Find a truth assignment that satisfies every clause of the following Boolean formula in conjunctive normal form (CNF).\n\np cnf 3 1\n1 -2 3 0"}},
		"empty":             nil,
		"prompt as system":  {{Role: envs.RoleSystem, Content: prompt}},
		"prompt as reply":   {{Role: envs.RoleAssistant, Content: prompt}},
		"unknown op":        {{Role: envs.RoleUser, Content: strings.Replace(prompt, "\n```\n\n", "\nrotate 1\n```\n\n", 1)}},
		"no output":         {{Role: envs.RoleUser, Content: prompt[:strings.Index(prompt, "its output was:")]}},
		"impossible output": {{Role: envs.RoleUser, Content: impossible(prompt)}},
	} {
		if a, ok := Solve(conv); ok || a != "" {
			t.Errorf("%s: Solve answered %q", name, a)
		}
		if name != "impossible output" {
			if a, ok := Wrong(conv, rng.New([32]byte{})); ok {
				t.Errorf("%s: Wrong answered %q", name, a)
			}
		}
	}
}

// impossible rewrites a prompt's program to one whose output cannot be the
// one shown: "filter even" followed by an odd output.
func impossible(prompt string) string {
	start := strings.Index(prompt, "Program:\n```\n")
	end := strings.Index(prompt, "\n\nGive any input")
	return prompt[:start] + "Program:\n```\nfilter even\n```\n\nWhen the program ran on a hidden input list, its output was:\n[3]" + prompt[end:]
}

// FuzzSolve: Solve and Wrong never panic on any user message, and when
// Solve answers, its answer makes the program it read output the list it
// read.
func FuzzSolve(f *testing.F) {
	for _, id := range envtest.IDs(Factory, 3) {
		msgs, _, _ := Factory.New().Reset(id)
		f.Add(msgs[1].Content)
	}
	f.Add(promptIntro + "\n" + programHeader + "drop 64\nstep 64" + programFooter + outputHeader + "[1, 2]")
	f.Fuzz(func(t *testing.T, text string) {
		conv := []envs.Message{{Role: envs.RoleUser, Content: text}}
		answer, ok := Solve(conv)
		Wrong(conv, rng.New([32]byte{}))
		if !ok {
			return
		}
		p, want, _ := readPuzzle(conv)
		if reward, reason := (task{program: p, want: want}).Score(answer); reward != 1 {
			t.Fatalf("Solve answered %q, which scores %d (%s)", answer, reward, reason)
		}
	})
}
