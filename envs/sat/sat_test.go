package sat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	envtest.Conformance(t, Factory, envtest.Options{N: 200, Solver: envtest.FromText(Solve), SolvedReward: 1})
}

func TestVectors(t *testing.T) {
	t.Parallel()
	envtest.Vectors(t, Factory, envtest.FromText(Solve), 5, vectorExtras)
}

// vectorExtras pins the parser's rules in the vectors: a wrong assignment,
// tolerated formats and each kind of malformed reply.
func vectorExtras(id challenge.ID, solved envs.Episode) []envtest.Labelled {
	answer := envtest.Actions(solved.Messages)[0]
	inner, _ := envs.LastTagged(answer, "answer")
	lits := strings.Fields(inner)
	wrong, _ := Wrong(solved.Messages[:2], rng.New(rng.Derive(id.Seed, "vectors/wrong")))
	var named []string
	for i, l := range lits {
		value := "T"
		if strings.HasPrefix(l, "-") {
			value = "F"
		}
		named = append(named, fmt.Sprintf("x%d = %s", i+1, value))
	}
	one := func(label, action string) envtest.Labelled {
		return envtest.Labelled{Label: label, Actions: []string{action}}
	}
	return []envtest.Labelled{
		one("wrong", wrong),
		one("fallback line in prose", "Checking every clause, this works:\n"+inner+"\nThat is my assignment."),
		one("named values with commas", "<answer>"+strings.Join(named, ", ")+"</answer>"),
		one("dimacs terminator and label", "<answer>**Answer:** "+inner+" 0</answer>"),
		one("prose without answer", "I could not find a satisfying assignment."),
		one("broken tag", "<answer>"+inner),
		one("answer in think block only", "<think><answer>"+inner+"</answer></think>The formula is hard."),
		one("junk token", "<answer>"+inner+" maybe</answer>"),
		one("variable missing", "<answer>"+strings.Join(lits[:len(lits)-1], " ")+"</answer>"),
		one("variable twice", "<answer>"+inner+" "+lits[0]+"</answer>"),
		one("variable out of range", "<answer>"+inner+fmt.Sprintf(" %d", len(lits)+1)+"</answer>"),
	}
}

func TestWrongScoresZero(t *testing.T) {
	t.Parallel()
	for _, id := range envtest.IDs(Factory, 300) {
		obs, _, err := Factory.New().Reset(id)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := Wrong(obs, rng.New(rng.Derive(id.Seed, "test/wrong")))
		if !ok {
			t.Fatalf("%s: Wrong refused its own env's prompt", id)
		}
		ep, err := envs.Replay(Factory, id, []string{a})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Reward != 0 || !strings.HasPrefix(ep.Reason, "clause ") {
			t.Fatalf("%s: Wrong answer %q scored %d (%s), want 0 for an unsatisfied clause", id, a, ep.Reward, ep.Reason)
		}
	}
}

func TestSolveRefusesForeignPrompts(t *testing.T) {
	t.Parallel()
	foreign := [][]envs.Message{
		nil,
		{{Role: envs.RoleSystem, Content: "You are good at arithmetic."}, {Role: envs.RoleUser, Content: "What is 12345678 * 87654321? Answer inside <answer></answer> tags."}},
		// DIMACS without this env's prompt is someone else's question.
		{{Role: envs.RoleUser, Content: "Solve this:\np cnf 3 1\n1 -2 3 0\n"}},
		// The intro without a formula.
		{{Role: envs.RoleUser, Content: promptIntro + "\n\nno formula here"}},
		// The intro with more variables than this env ever generates.
		{{Role: envs.RoleUser, Content: promptIntro + "\np cnf 21 1\n1 -2 21 0\n"}},
	}
	for i, conv := range foreign {
		if a, ok := Solve(conv); ok {
			t.Errorf("case %d: Solve answered %q for a foreign prompt", i, a)
		}
		if a, ok := Wrong(conv, rng.New([32]byte{})); ok {
			t.Errorf("case %d: Wrong answered %q for a foreign prompt", i, a)
		}
	}
}

func TestResetInfoAndPrompt(t *testing.T) {
	t.Parallel()
	for _, id := range envtest.IDs(Factory, 50) {
		obs, info, err := Factory.New().Reset(id)
		if err != nil {
			t.Fatal(err)
		}
		f := Generate(id.Seed)
		if info["n"] != int64(f.N) || info["k"] != int64(3) || info["m"] != int64(f.N*42/10) {
			t.Fatalf("%s: info %v does not match the formula (n=%d)", id, info, f.N)
		}
		if len(obs) != 2 || obs[0].Role != envs.RoleSystem || obs[1].Role != envs.RoleUser {
			t.Fatalf("%s: want a system and a user message, got %v", id, obs)
		}
		if !strings.Contains(obs[1].Content, "\n\n"+f.DIMACS()+"\n") {
			t.Fatalf("%s: prompt does not hold the formula as a DIMACS block", id)
		}
		back, err := ParseDIMACS(obs[1].Content)
		if err != nil || back.DIMACS() != f.DIMACS() {
			t.Fatalf("%s: formula read back from the prompt differs: %v", id, err)
		}
	}
}
