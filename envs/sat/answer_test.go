package sat

import (
	"strings"
	"testing"
)

// small satisfies "1 2 3 4" and "-1 -2 -3 -4"; "1 -2 -3 4" leaves clause 3
// unsatisfied.
var small = task{Formula{N: 4, Clauses: [][]int{{1, -2, 3}, {-1, 2, 4}, {2, 3, -4}}}}

func TestScore(t *testing.T) {
	t.Parallel()
	const unsat3 = "clause 3 unsatisfied: 2 3 -4"
	for _, tc := range []struct {
		answer string
		reward int
		reason string
	}{
		{"<answer>1 2 3 4</answer>", 1, "correct"},
		{"<answer>-1 -2 -3 -4</answer>", 1, "correct"},
		{"<answer>4 3 2 1</answer>", 1, "correct"},
		{"<answer>1, 2, 3, 4, 0</answer>", 1, "correct"},
		{"<answer>+1;+2;+3;+4</answer>", 1, "correct"},
		{"<answer>[x1, X2, x3, x4]</answer>", 1, "correct"},
		{"<answer>{1 2}(3 4)</answer>", 1, "correct"},
		{"<answer>x1=T x2=true x3=1 X4=TRUE</answer>", 1, "correct"},
		{"<answer>x1 = true, x2: T, 3 =\t1, x4=t</answer>", 1, "correct"},
		{"<answer>x1=F x2=false x3=0 x4=f</answer>", 1, "correct"},
		{"<ANSWER>1 2 3 4</Answer>", 1, "correct"},
		{"<answer>\n1\n2\n3\n4\n</answer>", 1, "correct"},
		{"<answer>**Answer:** `1 2 3 4`</answer>", 1, "correct"},
		{"<answer>Final assignment: 1 2 3 4</answer>", 1, "correct"},
		{"<answer>x01 x002 3 4</answer>", 1, "correct"},
		{"Let me think.\n```\n<answer>1 2 3 4</answer>\n```\n", 1, "correct"},
		{"<think>maybe <answer>1 -2 -3 4</answer></think><answer>1 2 3 4</answer>", 1, "correct"},
		{"reasoning cut short</think><answer>1 2 3 4</answer>", 1, "correct"},
		// Several tagged answers: the last one counts, right or wrong.
		{"<answer>1 -2 -3 4</answer> no, <answer>1 2 3 4</answer>", 1, "correct"},
		{"<answer>1 2 3 4</answer> no, <answer>1 -2 -3 4</answer>", 0, unsat3},
		{"<answer>1 2 3 4</answer> or <answer>none</answer>", 0, `malformed answer: unexpected token "none"`},
		// Negations.
		{"<answer>1 ¬x2 ~3 4</answer>", 0, unsat3},
		{"<answer>1 −2 !x3 4</answer>", 0, unsat3},
		{"<answer>x1=T x2=F x3=F x4=T</answer>", 0, unsat3},
		// Completeness and range, in the order of the checks.
		{"<answer>1 2 3</answer>", 0, "variable 4 missing"},
		{"<answer>2 3</answer>", 0, "variable 1 missing"},
		{"<answer>1 2 3 4 -2</answer>", 0, "variable 2 assigned twice"},
		{"<answer>1 2 2 5</answer>", 0, "variable 2 assigned twice"},
		{"<answer>1 2 3 4 5</answer>", 0, "variable 5 out of range"},
		{"<answer>1 2 0 3 4</answer>", 0, "variable 0 out of range"},
		{"<answer>1 2 3 4 -x0</answer>", 0, "variable 0 out of range"},
		{"<answer>1 2 3 00099999999999999999999</answer>", 0, "variable 99999999999999999999 out of range"},
		{"<answer>x007 1 2 3 4</answer>", 0, "variable 7 out of range"},
		{"<answer>1 2 3 4 0 0</answer>", 0, "variable 0 out of range"},
		// Malformed tagged answers.
		{"<answer>1 2 three 4</answer>", 0, `malformed answer: unexpected token "three"`},
		{"<answer>-x1=T 2 3 4</answer>", 0, `malformed answer: unexpected token "-x1=T"`},
		{"<answer>x1=yes 2 3 4</answer>", 0, `malformed answer: unexpected token "x1=yes"`},
		{"<answer>1 2 3 4.</answer>", 0, `malformed answer: unexpected token "4."`},
		{"<answer>--1 2 3 4</answer>", 0, `malformed answer: unexpected token "--1"`},
		{"<answer>1 2 3 " + strings.Repeat("y", 40) + "</answer>", 0, `malformed answer: unexpected token "` + strings.Repeat("y", 32) + `..."`},
		{"<answer></answer>", 0, "no assignment found"},
		{"<answer> 0 </answer>", 0, "no assignment found"},
		{"<answer>Answer:</answer>", 0, "no assignment found"},
		// No tags: the last line with exactly n literals.
		{"I think the answer is\n1 2 3 4\nDone.", 1, "correct"},
		{"**Answer:** 1 2 3 4", 1, "correct"},
		{"Final assignment: x1=T, x2=F, x3=F, x4=T", 0, unsat3},
		{"1 2 3 4\n1 -2 -3 4\n", 0, unsat3},
		{"1 2 3 4\nclause 2 3 0 holds\n2 3\n", 1, "correct"},
		{"1 2 3 3\n", 0, "variable 3 assigned twice"},
		{"1 2 3 4 4\n", 0, "no assignment found"},
		{"1 2 3\n", 0, "no assignment found"},
		{"<answer>1 2 3 4", 0, "no assignment found"},
		{"1 2 3 4</answer>", 0, "no assignment found"},
		{"<think><answer>1 2 3 4</answer></think>The formula is hard.", 0, "no assignment found"},
		{"<think>1 2 3 4", 0, "no assignment found"},
		{"no idea", 0, "no assignment found"},
		{"\xff\xfe", 0, "no assignment found"},
	} {
		reward, reason := small.Score(tc.answer)
		if reward != tc.reward || reason != tc.reason {
			t.Errorf("Score(%q) = %d %q, want %d %q", tc.answer, reward, reason, tc.reward, tc.reason)
		}
	}
}

// canonical renders literals in the primary format, ended by the DIMACS
// terminator so that a variable 0 written last (x0) stays a literal.
func canonical(lits []literal) string {
	parts := make([]string, len(lits), len(lits)+1)
	for i, l := range lits {
		parts[i] = l.num
		if !l.value {
			parts[i] = "-" + l.num
		}
	}
	return strings.Join(append(parts, "0"), " ")
}

// FuzzParseAssignment: no panic on any input; whatever parses re-renders in
// the primary format to the same literals, tagged or not; scoring any reply
// gives 0 or 1 with a reason.
func FuzzParseAssignment(f *testing.F) {
	for _, s := range []string{
		"1 -2 3", "x1=T, x2: false", "**Answer:** ¬x3 ~4 −5 0", "[1, 2]", "0", "x", "x1==1",
		"Final answer: 1 2", "<answer>1 2 3 4</answer>", "<think>1</think>1 2 3 4", "A:=", "-",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lits, err := parseAssignment(s)
		if err == nil {
			text := canonical(lits)
			again, err := parseAssignment(text)
			if err != nil || canonical(again) != text {
				t.Fatalf("%q parsed to %q, which parses to %q (%v)", s, text, canonical(again), err)
			}
			tagged, found, err := extractAssignment("<answer>"+text+"</answer>", 4)
			if err != nil || found != (len(lits) > 0) || canonical(tagged) != text {
				t.Fatalf("tagged %q extracted as %q found=%v err=%v", text, canonical(tagged), found, err)
			}
		}
		reward, reason := small.Score(s)
		if (reward != 0 && reward != 1) || reason == "" {
			t.Fatalf("Score(%q) = %d %q", s, reward, reason)
		}
	})
}
