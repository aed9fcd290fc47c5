package mult8

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestConformance(t *testing.T) {
	envtest.Conformance(t, Factory, envtest.Options{N: 200, Solver: envtest.FromText(Solve), SolvedReward: 1})
}

func TestVectors(t *testing.T) {
	envtest.Vectors(t, Factory, envtest.FromText(Solve), 5, func(id challenge.ID, solved envs.Episode) []envtest.Labelled {
		wrong, _ := Wrong(solved.Messages, rng.New(rng.Derive(id.Seed, "vectors/wrong")))
		p := product(t, solved.Info)
		one := func(label, action string) envtest.Labelled {
			return envtest.Labelled{Label: label, Actions: []string{action}}
		}
		return []envtest.Labelled{
			one("wrong: plausible slip", wrong),
			one("fallback: grouped in bold prose", "Multiplying out, the product is **"+group(p, ",")+"**."),
			one("tag: LaTeX thin spaces", "<answer>$"+group(p, `\,`)+"$</answer>"),
			one("fallback: unclosed tag", "<answer>"+p),
			one("malformed: prose without a number", "I cannot compute this exactly."),
			one("malformed: words in the tag", "<answer>about ten quadrillion</answer>"),
			one("malformed: answer only in a think block", "<think><answer>"+p+"</answer></think>I would rather not say."),
			one("malformed: decimal in the tag", "<answer>"+p+".0</answer>"),
			one("wrong: negative", "<answer>-"+p+"</answer>"),
			one("malformed: integer too long", "<answer>"+strings.Repeat("9", MaxDigits+1)+"</answer>"),
		}
	})
}

// product recomputes the answer from the factors in info, independently of
// the task the generator built.
func product(t *testing.T, info envs.Info) string {
	t.Helper()
	a, okA := info["a"].(int64)
	b, okB := info["b"].(int64)
	if !okA || !okB {
		t.Fatalf("info lacks the factors: %v", info)
	}
	return strconv.FormatInt(a*b, 10)
}

// group writes digits in groups of three joined by sep.
func group(digits, sep string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return b.String()
}

func TestGeneratorFollowsSpec(t *testing.T) {
	for _, id := range envtest.IDs(Factory, 300) {
		msgs, info, err := Factory.New().Reset(id)
		if err != nil {
			t.Fatal(err)
		}
		s := rng.New(id.Seed)
		a, b := s.IntRange(10000000, 99999999), s.IntRange(10000000, 99999999)
		if info["a"] != a || info["b"] != b || info["digits"] != int64(8) {
			t.Fatalf("%s: info %v, want a=%d b=%d digits=8", id, info, a, b)
		}
		if len(msgs) != 2 || msgs[0].Role != envs.RoleSystem || msgs[0].Content != SystemPrompt || msgs[1].Role != envs.RoleUser {
			t.Fatalf("%s: want the system prompt then a user message: %v", id, msgs)
		}
		want := fmt.Sprintf("What is %d multiplied by %d? Give the exact product inside <answer></answer> tags.", a, b)
		if msgs[1].Content != want {
			t.Fatalf("%s: prompt %q, want %q", id, msgs[1].Content, want)
		}
		if strings.Contains(msgs[1].Content, strconv.FormatInt(a*b, 10)) {
			t.Fatalf("%s: the prompt gives the product away", id)
		}
	}
}

func TestWrongScoresZero(t *testing.T) {
	r := rng.New(rng.Derive([32]byte{}, "mult8 wrong test"))
	seen := map[string]bool{}
	for _, id := range envtest.IDs(Factory, 1000) {
		msgs, info, _ := Factory.New().Reset(id)
		answer, ok := Wrong(msgs, r)
		if !ok {
			t.Fatalf("%s: Wrong did not recognise the prompt", id)
		}
		ep, err := envs.Replay(Factory, id, []string{answer})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Reward != 0 || !strings.HasPrefix(ep.Reason, "wrong: got ") {
			t.Fatalf("%s: Wrong answer %q scored %d (%s), want 0 as a well-formed wrong answer", id, answer, ep.Reward, ep.Reason)
		}
		// Plausible: off by a power of ten (a digit slip or a carry), or
		// two digits swapped.
		got := strings.TrimSuffix(strings.TrimPrefix(answer, "<answer>"), "</answer>")
		p := product(t, info)
		if !carryError(got, p) && (len(got) != len(p) || differingDigits(got, p) != 2) {
			t.Fatalf("%s: Wrong answer %s is not a near miss of %s", id, got, p)
		}
		seen[kind(got, p)] = true
	}
	if len(seen) < 2 {
		t.Errorf("Wrong made only these kinds of mistake: %v", seen)
	}
}

func differingDigits(a, b string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// carryError reports whether got = want ± 10^k.
func carryError(got, want string) bool {
	g, _ := strconv.ParseInt(got, 10, 64)
	w, _ := strconv.ParseInt(want, 10, 64)
	d := g - w
	if d < 0 {
		d = -d
	}
	for d >= 10 && d%10 == 0 {
		d /= 10
	}
	return d == 1
}

func kind(got, want string) string {
	if carryError(got, want) {
		return "power of ten"
	}
	return "transposition"
}

func TestSolveRefusesOtherPrompts(t *testing.T) {
	foreign := [][]envs.Message{
		nil,
		{{Role: envs.RoleSystem, Content: "You are playing a coin-guessing game."}, {Role: envs.RoleUser, Content: "Coin toss #123456: guess heads or tails inside <answer></answer> tags."}},
		// Close to the mult8 prompt but with seven-digit factors.
		{{Role: envs.RoleUser, Content: "What is 1234567 multiplied by 7654321? Give the exact product inside <answer></answer> tags."}},
		// The right text in an assistant message is not a question.
		{{Role: envs.RoleAssistant, Content: "What is 12345678 multiplied by 87654321? Give the exact product inside <answer></answer> tags."}},
	}
	for i, conv := range foreign {
		if a, ok := Solve(conv); ok {
			t.Errorf("foreign conversation %d: Solve answered %q", i, a)
		}
		if a, ok := Wrong(conv, rng.New([32]byte{})); ok {
			t.Errorf("foreign conversation %d: Wrong answered %q", i, a)
		}
	}
	a, ok := Solve([]envs.Message{{Role: envs.RoleUser, Content: "What is 12345678 multiplied by 87654321? Give the exact product inside <answer></answer> tags."}})
	if !ok || a != "<answer>1082152022374638</answer>" {
		t.Errorf("Solve on a known prompt: %q, %v", a, ok)
	}
}

func BenchmarkGenerate(b *testing.B) { envtest.BenchmarkGenerate(b, Factory) }

func BenchmarkScore(b *testing.B) { envtest.BenchmarkScore(b, Factory, envtest.FromText(Solve)) }
