package envs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "42", "42"},
		{"think removed", "<think>maybe 41</think>42", " 42"},
		{"think any case", "<THINK>41</Think> 42", "  42"},
		{"unclosed think cut", "42 <think>no, 43", "42 "},
		{"lone close keeps tail", "reasoning 41</think>42", "42"},
		{"fence lines removed", "```python\n42\n```", "\n42\n"},
		{"invalid utf8", "4\xff2", "4\uFFFD2"},
		{"non-ascii before tag", "İİ<think>x</think>7", "İİ 7"},
		{"kelvin sign is not k", "<thin\u212A>x</thin\u212A>7", "<thin\u212A>x</thin\u212A>7"},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestLastTagged(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"<answer>1</answer> then <answer>2</answer>", "2", true},
		{"<ANSWER>3</Answer>", "3", true},
		{"<answer>1</answer> <answer>2", "1", true},
		{"2</answer>", "", false},
		{"none", "", false},
		{"<answer><answer>5</answer>", "5", true},
		{"ẞ<answer>6</answer>", "6", true},
	}
	for _, c := range cases {
		got, ok := LastTagged(c.in, "answer")
		if got != c.want || ok != c.ok {
			t.Errorf("LastTagged(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	if CheckAnswer("7") != "" {
		t.Fatal("plain answer refused")
	}
	if CheckAnswer(" \n") != ReasonEmpty {
		t.Fatal("blank answer accepted")
	}
	if r := CheckAnswer(strings.Repeat("x", MaxAnswerBytes+1)); !strings.Contains(r, "too large") {
		t.Fatalf("oversized answer: %q", r)
	}
	if CheckAnswer(strings.Repeat("x", MaxAnswerBytes)) != "" {
		t.Fatal("answer at the limit refused")
	}
}

func FuzzClean(f *testing.F) {
	f.Add("<think>a</think>b<answer>c</answer>")
	f.Add("İ<THINK>")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) is not valid UTF-8", s)
		}
		if strings.Contains(asciiLower(out), "<think>") {
			t.Fatalf("Clean(%q) = %q still holds <think>", s, out)
		}
		if got, ok := LastTagged(s, "answer"); ok && !strings.Contains(s, got) {
			t.Fatalf("LastTagged(%q) = %q is not part of the input", s, got)
		}
		_ = Truncate(s, len(s)/2)
	})
}
