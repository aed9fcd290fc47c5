package abd

import (
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd/lang"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       []int64 // nil with found false: no list
		found      bool
		outOfRange string
	}{
		{"primary", "<answer>[3, 1, 4]</answer>", []int64{3, 1, 4}, true, ""},
		{"empty list", "<answer>[]</answer>", []int64{}, true, ""},
		{"empty list with space", "<answer>[ \n ]</answer>", []int64{}, true, ""},
		{"spaces and newlines", "<answer>\n  [ 3 ,1,\n 4 ]  \n</answer>", []int64{3, 1, 4}, true, ""},
		{"space separated", "<answer>[3 1 -4]</answer>", []int64{3, 1, -4}, true, ""},
		{"trailing comma", "<answer>[3, 1, 4,]</answer>", []int64{3, 1, 4}, true, ""},
		{"bare list", "<answer>3, 1, 4</answer>", []int64{3, 1, 4}, true, ""},
		{"bare single", "<answer> -7 </answer>", []int64{-7}, true, ""},
		{"signs", "<answer>[+3, \u22121, -0, 007]</answer>", []int64{3, -1, 0, 7}, true, ""},
		{"markdown in tag", "<answer>**`[3, 1]`**</answer>", []int64{3, 1}, true, ""},
		{"tags in other case", "<ANSWER>[5]</Answer>", []int64{5}, true, ""},
		{"last tag wins", "<answer>[1]</answer> on second thought <answer>[2, 2]</answer>", []int64{2, 2}, true, ""},
		{"last well-formed tag wins", "<answer>[1]</answer> then <answer>[2, x]</answer>", []int64{1}, true, ""},
		{"nested opening tags", "<answer>junk <answer>[9]</answer>", []int64{9}, true, ""},
		{"think block ignored", "<think><answer>[1]</answer></think><answer>[2]</answer>", []int64{2}, true, ""},
		{"answer only in think", "<think>maybe <answer>[1, 2]</answer></think>I am not sure.", nil, false, ""},
		{"code fence", "```\n<answer>[4, 5]</answer>\n```", []int64{4, 5}, true, ""},
		{"fenced list in tag", "<answer>\n```json\n[4, 5]\n```\n</answer>", []int64{4, 5}, true, ""},
		{"fallback: prose", "The input is [6, 7, 8].", []int64{6, 7, 8}, true, ""},
		{"fallback: last list", "Output [1, 2] comes from [3, 4] here", []int64{3, 4}, true, ""},
		{"fallback: nested brackets", "so [[1, 2]]", []int64{1, 2}, true, ""},
		{"fallback: malformed tag", "<answer>input = [5, 6]</answer>", []int64{5, 6}, true, ""},
		{"fallback: unclosed tag", "<answer>[1, 2]", []int64{1, 2}, true, ""},
		{"fallback skips non-lists", "[1, 2] and then [a, b] and [3.5]", []int64{1, 2}, true, ""},
		{"broken tag", "<answer>[1, 2", nil, false, ""},
		{"no list", "I think the answer is one, two, three.", nil, false, ""},
		{"decimal", "<answer>[1.5]</answer>", nil, false, ""},
		{"double comma", "<answer>[1,,2]</answer>", nil, false, ""},
		{"adjacent signs", "<answer>[1-2]</answer>", nil, false, ""},
		{"lone sign", "<answer>[-]</answer>", nil, false, ""},
		{"words in tag", "<answer>three</answer>", nil, false, ""},
		{"empty tag", "<answer></answer>", nil, false, ""},
		{"out of range", "<answer>[1, 1000001, -2000000]</answer>", []int64{1, 1000001, -1000001}, true, "1000001"},
		{"limit itself", "<answer>[-1000000, 1000000]</answer>", []int64{-1000000, 1000000}, true, ""},
		{"huge value", "<answer>[-000123456789012345678901234567890]</answer>", []int64{-1000001}, true, "-12345678901234567890123..."},
	} {
		got, found := extract(envs.Clean(tc.text))
		if found != tc.found || found && (!slices.Equal(got.values, tc.want) || got.outOfRange != tc.outOfRange) {
			t.Errorf("%s: extract(%q) = %v %q, %v; want %v %q, %v", tc.name, tc.text, got.values, got.outOfRange, found, tc.want, tc.outOfRange, tc.found)
		}
	}
}

func TestScoreReasons(t *testing.T) {
	t.Parallel()
	p, err := lang.Parse("map mul 2\nsort asc\ndrop 1")
	if err != nil {
		t.Fatal(err)
	}
	tk := task{program: p, want: []int64{4, 6}}
	for _, tc := range []struct {
		answer string
		reward int
		reason string
	}{
		{"<answer>[3, 1, 2]</answer>", 1, "correct"},
		{"<answer>[2, 3, 0]</answer>", 1, "correct"},
		{"<answer>[3, 2]</answer>", 0, "output differs: got [6], want [4, 6]"},
		{"<answer>[]</answer>", 0, "output differs: got [], want [4, 6]"},
		{"<answer>[" + strings.Repeat("1, ", 64) + "1]</answer>", 0, "input too long: 65 values > 64"},
		{"<answer>[1, 2, 3000000]</answer>", 0, "value out of range: 3000000 not in [-1000000, 1000000]"},
		{"<answer>[1, 2, 600000]</answer>", 0, "program error: op 1 (map mul 2): value out of range: 1200000 not in [-1000000, 1000000]"},
		{"I give up.", 0, "no list found"},
	} {
		reward, reason := tk.Score(tc.answer)
		if reward != tc.reward || reason != tc.reason {
			t.Errorf("Score(%q) = %d %q, want %d %q", tc.answer, reward, reason, tc.reward, tc.reason)
		}
	}
}

// FuzzExtract: the answer parser never panics and every list it finds is
// found again, unchanged, when it is written back in the primary format or
// as a bracketed list in prose.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"<answer>[3, 1, 4]</answer>", "<answer>3 1 4,</answer>", "text [1,2] more [3 ,4 ,]",
		"<answer>[-0, +5, \u22127]</answer>", "<think>[1]</think>[2", "<answer><answer>[1]</answer></answer>",
		"[99999999999999999999]", "</answer><answer>", "[[[[1]]]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l, found := extract(envs.Clean(text))
		if !found {
			return
		}
		for _, again := range []string{formatAnswer(l.values), "so it is " + lang.FormatList(l.values) + "."} {
			l2, ok := extract(envs.Clean(again))
			if !ok || !slices.Equal(l2.values, l.values) {
				t.Fatalf("%q gave %v; written back as %q it gives %v, %v", text, l.values, again, l2.values, ok)
			}
			if (l.outOfRange == "") != (l2.outOfRange == "") {
				t.Fatalf("%q: out-of-range flag changed on rewrite: %q vs %q", text, l.outOfRange, l2.outOfRange)
			}
		}
		for _, v := range l.values {
			if v < -lang.Default.MaxValue-1 || v > lang.Default.MaxValue+1 {
				t.Fatalf("value %d beyond the saturation bound", v)
			}
		}
	})
}
