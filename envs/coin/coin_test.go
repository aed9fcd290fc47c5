package coin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

// oracle regenerates the outcome from the challenge ID by the spec's rule,
// the one thing a real solver cannot do.
func oracle(id challenge.ID, _ []envs.Message) string {
	if rng.New(id.Seed).Chance(1, 2) {
		return "<answer>heads</answer>"
	}
	return "<answer>tails</answer>"
}

func TestConformance(t *testing.T) {
	envtest.Conformance(t, Factory, envtest.Options{N: 200, Solver: oracle, SolvedReward: 1})
}

func TestVectors(t *testing.T) {
	envtest.Vectors(t, Factory, oracle, 5, func(id challenge.ID, solved envs.Episode) []envtest.Labelled {
		right := strings.TrimSuffix(strings.TrimPrefix(oracle(id, nil), "<answer>"), "</answer>")
		wrong := Heads
		if right == Heads {
			wrong = Tails
		}
		solve, _ := Solve(solved.Messages)
		one := func(label, action string) envtest.Labelled {
			return envtest.Labelled{Label: label, Actions: []string{action}}
		}
		return []envtest.Labelled{
			one("wrong: the other side", "<answer>"+wrong+"</answer>"),
			one("Solve's fixed guess", solve),
			one("tag: any case, bold", "<ANSWER>**"+strings.ToUpper(right)+"**</ANSWER>"),
			one("fallback: last word in prose", "Either could come up; "+wrong+" is as likely as "+right+"."),
			one("malformed: both in the tag", "<answer>"+right+" or "+wrong+"</answer>"),
			one("malformed: prose without a guess", "I cannot know how a fair coin landed."),
			one("malformed: guess only in a think block", "<think><answer>"+right+"</answer></think>No guess."),
			one("malformed: singular word", "<answer>"+strings.TrimSuffix(right, "s")+"</answer>"),
		}
	})
}

func TestGeneratorFollowsSpec(t *testing.T) {
	for _, id := range envtest.IDs(Factory, 300) {
		msgs, info, err := Factory.New().Reset(id)
		if err != nil {
			t.Fatal(err)
		}
		toss := rng.New(rng.Derive(id.Seed, "coin/toss")).IntRange(100000, 999999)
		want := fmt.Sprintf("Coin toss #%d: a fair coin has been tossed and nobody has seen how it landed. Guess whether it landed heads or tails, and give your guess inside <answer></answer> tags.", toss)
		if len(msgs) != 2 || msgs[0] != (envs.Message{Role: envs.RoleSystem, Content: SystemPrompt}) || msgs[1] != (envs.Message{Role: envs.RoleUser, Content: want}) {
			t.Fatalf("%s: messages %v, want the system prompt and %q", id, msgs, want)
		}
		if info["toss"] != toss || len(info) != 4 {
			t.Fatalf("%s: info %v, want the base info and toss=%d only", id, info, toss)
		}
	}
}

// TestSolveWinsHalf plays Solve and Wrong on the same 2000 challenges. Both
// must be well formed (every score is correct or wrong, never malformed),
// they must split the wins between them exactly, and Solve must win about
// half: 1000 expected, standard deviation 22.4, so the bounds 900-1100 are
// 4.5 standard deviations wide. The IDs are fixed, so the test is
// deterministic; the bounds only say the outcome stream is fair.
func TestSolveWinsHalf(t *testing.T) {
	const n = 2000
	solveWins, wrongWins := 0, 0
	for _, id := range envtest.IDs(Factory, n) {
		msgs, _, _ := Factory.New().Reset(id)
		for _, player := range []struct {
			name string
			wins *int
			play func() (string, bool)
		}{
			{"Solve", &solveWins, func() (string, bool) { return Solve(msgs) }},
			{"Wrong", &wrongWins, func() (string, bool) { return Wrong(msgs, rng.New(id.Seed)) }},
		} {
			answer, ok := player.play()
			if !ok {
				t.Fatalf("%s: %s did not recognise the prompt", id, player.name)
			}
			ep, err := envs.Replay(Factory, id, []string{answer})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case ep.Reason == envs.ReasonCorrect && ep.Reward == 1:
				*player.wins++
			case strings.HasPrefix(ep.Reason, "wrong: got ") && ep.Reward == 0:
			default:
				t.Fatalf("%s: %s's answer %q scored %d (%s): not well formed", id, player.name, answer, ep.Reward, ep.Reason)
			}
		}
	}
	if solveWins+wrongWins != n {
		t.Fatalf("Solve won %d and Wrong %d of %d: they must split every toss", solveWins, wrongWins, n)
	}
	if solveWins < 900 || solveWins > 1100 {
		t.Fatalf("Solve won %d of %d; a fair coin gives 900 to 1100", solveWins, n)
	}
	t.Logf("Solve won %d of %d", solveWins, n)
}

func TestSolveRefusesOtherPrompts(t *testing.T) {
	foreign := [][]envs.Message{
		nil,
		{{Role: envs.RoleSystem, Content: "You are a careful calculator."}, {Role: envs.RoleUser, Content: "What is 12345678 multiplied by 87654321? Give the exact product inside <answer></answer> tags."}},
		// A tictactoe-like prompt that happens to mention a coin toss.
		{{Role: envs.RoleUser, Content: "We tossed a coin: you play X. Reply with your move inside <move></move> tags."}},
		// The coin prompt with a five-digit toss number is not this version's.
		{{Role: envs.RoleUser, Content: "Coin toss #12345: a fair coin has been tossed and nobody has seen how it landed. Guess whether it landed heads or tails, and give your guess inside <answer></answer> tags."}},
	}
	for i, conv := range foreign {
		if a, ok := Solve(conv); ok {
			t.Errorf("foreign conversation %d: Solve answered %q", i, a)
		}
		if a, ok := Wrong(conv, rng.New([32]byte{})); ok {
			t.Errorf("foreign conversation %d: Wrong answered %q", i, a)
		}
	}
}

func BenchmarkGenerate(b *testing.B) { envtest.BenchmarkGenerate(b, Factory) }

func BenchmarkScore(b *testing.B) { envtest.BenchmarkScore(b, Factory, envtest.FromText(Solve)) }
