package coin

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScore(t *testing.T) {
	heads := task{outcome: Heads}
	cases := []struct {
		name, answer string
		reward       int
		reason       string
	}{
		{"primary", "<answer>heads</answer>", 1, "correct"},
		{"wrong", "<answer>tails</answer>", 0, "wrong: got tails, want heads"},
		{"case", "<Answer>HeAdS</ANSWER>", 1, "correct"},
		{"markdown in tag", "<answer>**Heads**</answer>", 1, "correct"},
		{"sentence in tag", "<answer>My guess: heads.</answer>", 1, "correct"},
		{"repeated in tag", "<answer>heads, heads!</answer>", 1, "correct"},
		{"last tag wins", "<answer>tails</answer> no, <answer>heads</answer>", 1, "correct"},
		{"last tag wins when wrong", "<answer>heads</answer> no, <answer>tails</answer>", 0, "wrong: got tails, want heads"},
		{"tag beats later prose", "<answer>heads</answer> (tails was also possible)", 1, "correct"},
		{"both in tag", "<answer>heads or tails</answer>", 0, ReasonBoth},
		{"none in tag", "<answer>the coin</answer> heads", 0, ReasonNoTaggedGuess},
		{"singular in tag", "<answer>head</answer>", 0, ReasonNoTaggedGuess},
		{"prose: last word", "Heads or tails? I say heads.", 1, "correct"},
		{"prose: last word wrong", "Not heads. Tails!", 0, "wrong: got tails, want heads"},
		{"prose: whole words only", "headstrong guess: tailspin", 0, ReasonNoGuess},
		{"prose: digit glued", "heads2", 0, ReasonNoGuess},
		{"prose: non-ASCII letter glued", "éheads", 0, ReasonNoGuess},
		{"prose: underscore is not a letter", "_heads_", 1, "correct"},
		{"prose: punctuation", "(heads)", 1, "correct"},
		{"think ignored", "<think>tails</think>heads", 1, "correct"},
		{"only in think", "<think><answer>heads</answer></think>", 0, ReasonNoGuess},
		{"unclosed think", "heads <think>tails", 1, "correct"},
		{"code fence", "```\nheads\n```", 1, "correct"},
		{"unclosed tag falls back", "<answer>tails or... heads", 1, "correct"},
		{"Kelvin sign is not K", "\u212Aheads", 0, ReasonNoGuess},
		{"junk", "\x00\xff<<>>", 0, ReasonNoGuess},
	}
	for _, c := range cases {
		reward, reason := heads.Score(c.answer)
		if reward != c.reward || reason != c.reason {
			t.Errorf("%s: Score(%q) = %d %q, want %d %q", c.name, c.answer, reward, reason, c.reward, c.reason)
		}
	}
}

// FuzzCoinParse checks that scoring never panics, that a guess found in any
// text reads back the same from the primary format, and that a tagged guess
// appended to any text (without reasoning tags) is the one read, in any
// ASCII case.
func FuzzCoinParse(f *testing.F) {
	f.Add("heads or tails? <answer>", false, uint8(3))
	f.Add("<answer>Heads</answer>tails", true, uint8(0))
	f.Add("<think>x</think>```\nTAILS\n```", true, uint8(31))
	f.Fuzz(func(t *testing.T, s string, tails bool, caseMask uint8) {
		reward, reason := task{outcome: Heads}.Score(s)
		if reward != 0 && reward != 1 || reason == "" || !utf8.ValidString(reason) {
			t.Fatalf("Score(%q) = %d %q", s, reward, reason)
		}
		if guess, reason := extract(s); reason == "" {
			if again, reason := extract("<answer>" + guess + "</answer>"); reason != "" || again != guess {
				t.Fatalf("extract(%q) = %s, but its primary form reads back as %q (%s)", s, guess, again, reason)
			}
		}
		if strings.Contains(strings.ToLower(s), "think>") {
			return
		}
		want := Heads
		if tails {
			want = Tails
		}
		word := []byte(want)
		for i := range word {
			if caseMask>>i&1 == 1 {
				word[i] -= 'a' - 'A'
			}
		}
		if got, reason := extract(s + " <answer>" + string(word) + "</answer>"); reason != "" || got != want {
			t.Fatalf("%q + tagged %s: read %q (%s), want %s", s, word, got, reason, want)
		}
	})
}
