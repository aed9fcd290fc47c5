package mult8

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLastInteger(t *testing.T) {
	cases := []struct {
		in   string
		want string // "" when no integer is found
	}{
		{"42", "42"},
		{"+42", "42"},
		{"-42", "-42"},
		{"= -42", "-42"},
		{"\u221242", "-42"},
		{"-0", "0"},
		{"007", "7"},
		{"1,082,152,022,374,638", "1082152022374638"},
		{"1_082_152", "1082152"},
		{"1 082 152", "1082152"},
		{"1\u2009082\u2009152", "1082152"},
		{"1\u202F082\u202F152", "1082152"},
		{`1\,082\,152`, "1082152"},
		{"1{,}082{,}152", "1082152"},
		{"**1,082,152**", "1082152"},
		{"$1,082$", "1082"},
		{"_1234_", "1234"},
		{"\\boxed{1234}", "1234"},
		{"x = 1234.", "1234"},
		{"1234 and 5678", "5678"},
		{"1234, 5678", "5678"},
		{"3-4", "4"},
		{"x-4", "4"},
		{"a*b = 12*34", "34"},
		{"12345678 × 87654321 = 1082152022374638", "1082152022374638"},
		// Not integers: decimals, words, bad grouping.
		{"3.14", ""},
		{"1.082.152", ""},
		{"x2", ""},
		{"2x", ""},
		{"1e16", ""},
		{"12,34", ""},
		{"1234,567", ""},
		{"1,234,5678", ""},
		{"1_2345", ""},
		{"٣42", ""},
		{"no digits", ""},
		// Mixed separators end a group; a space then starts a new integer.
		{"1,234 567", "567"},
		{"1,234 56", "56"},
		// Discarded candidates leave earlier integers standing.
		{"7 then 3.5", "7"},
		{"12345678 then 12,34", "12345678"},
	}
	for _, c := range cases {
		n, ok := lastInteger(c.in)
		got := ""
		if ok {
			got = n.String()
		}
		if got != c.want {
			t.Errorf("lastInteger(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestScore(t *testing.T) {
	const want = "1082152022374638"
	task := task{want: want}
	cases := []struct {
		name, answer string
		reward       int
		reason       string
	}{
		{"primary", "<answer>1082152022374638</answer>", 1, "correct"},
		{"tag any case", "<ANSWER>1082152022374638</Answer>", 1, "correct"},
		{"equation in tag", "<answer>12345678 × 87654321 = 1,082,152,022,374,638</answer>", 1, "correct"},
		{"bold in tag", "<answer>**1082152022374638**</answer>", 1, "correct"},
		{"last tag wins", "<answer>1082152022374637</answer> no wait <answer>1082152022374638</answer>", 1, "correct"},
		{"last tag wins when wrong", "<answer>1082152022374638</answer> or <answer>1082152022374637</answer>", 0, "wrong: got 1082152022374637, want 1082152022374638"},
		{"tag beats later prose", "<answer>1082152022374638</answer>\nThat took 3 steps.", 1, "correct"},
		{"prose fallback", "The product is 1,082,152,022,374,638.", 1, "correct"},
		{"prose: last integer", "I got 1082152022374638, checking with 12345678 ...", 0, "wrong: got 12345678, want 1082152022374638"},
		{"think block ignored", "<think>maybe <answer>1</answer></think>\n<answer>1082152022374638</answer>", 1, "correct"},
		{"only in think", "<think><answer>1082152022374638</answer></think>No idea.", 0, ReasonNoInteger},
		{"unclosed think", "1082152022374638 <think>hmm", 1, "correct"},
		{"code fence", "```\n1082152022374638\n```", 1, "correct"},
		{"fenced tag", "```xml\n<answer>1082152022374638</answer>\n```", 1, "correct"},
		{"empty tag", "<answer></answer>", 0, ReasonNoTaggedInteger},
		{"words in tag", "<answer>sixteen digits</answer> 1082152022374638", 0, ReasonNoTaggedInteger},
		{"unclosed tag falls back", "<answer>1082152022374638", 1, "correct"},
		{"negative", "<answer>-1082152022374638</answer>", 0, "wrong: got -1082152022374638, want 1082152022374638"},
		{"leading zeros", "<answer>0001082152022374638</answer>", 1, "correct"},
		{"too long", "<answer>" + strings.Repeat("1", 41) + "</answer>", 0, "integer too long: 41 digits, limit 40"},
		{"long with zeros", "<answer>" + strings.Repeat("0", 40) + "1</answer>", 0, "integer too long: 41 digits, limit 40"},
		{"at the limit", "<answer>" + strings.Repeat("0", 24) + want + "</answer>", 1, "correct"},
		{"junk", "\x00\xff<<>>", 0, ReasonNoInteger},
	}
	for _, c := range cases {
		reward, reason := task.Score(c.answer)
		if reward != c.reward || reason != c.reason {
			t.Errorf("%s: Score(%q) = %d %q, want %d %q", c.name, c.answer, reward, reason, c.reward, c.reason)
		}
	}
}

// separatorStyles are the ways a fuzzed integer is written back.
var separatorStyles = []string{"", ",", "_", " ", "\u2009", "\u202F", `\,`, "{,}"}

// FuzzMult8Parse checks that scoring never panics, that an integer found
// anywhere reads back the same from the primary format, and that a tagged
// answer appended to any text (without reasoning tags) is the one read,
// whichever separator style writes it.
func FuzzMult8Parse(f *testing.F) {
	f.Add("The product is **1,082,152**.", uint64(1082152022374638), uint8(1), false)
	f.Add("<answer>12</answer> <answer>", uint64(7), uint8(3), true)
	f.Add("3.14 and 1_2345 x-5", uint64(0), uint8(6), false)
	f.Add("<think>1</think>```\n-4\n```", uint64(1<<63), uint8(7), true)
	f.Fuzz(func(t *testing.T, s string, v uint64, style uint8, neg bool) {
		reward, reason := task{want: "1082152022374638"}.Score(s)
		if reward != 0 && reward != 1 || reason == "" || !utf8.ValidString(reason) {
			t.Fatalf("Score(%q) = %d %q", s, reward, reason)
		}
		if n, ok := lastInteger(s); ok {
			again, reason := extract("<answer>" + n.String() + "</answer>")
			if n.written <= MaxDigits && (reason != "" || again.String() != n.String()) {
				t.Fatalf("lastInteger(%q) = %s, but its primary form reads back as %s (%s)", s, n, again, reason)
			}
		}
		if strings.Contains(strings.ToLower(s), "think>") {
			return
		}
		digits := group(strconv.FormatUint(v, 10), separatorStyles[int(style)%len(separatorStyles)])
		sign, want := "", strconv.FormatUint(v, 10)
		if neg {
			sign = "-"
			if v != 0 {
				want = "-" + want
			}
		}
		n, reason := extract(s + " <answer>" + sign + digits + "</answer>")
		if reason != "" || n.String() != want {
			t.Fatalf("%q + tagged %s%s: read %s (%q), want %s", s, sign, digits, n, reason, want)
		}
	})
}
