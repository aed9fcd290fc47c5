package abd

import (
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd/lang"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestConformance(t *testing.T) {
	envtest.Conformance(t, Factory, envtest.Options{N: 200, Solver: envtest.FromText(Solve), SolvedReward: 1})
}

func TestVectors(t *testing.T) {
	envtest.Vectors(t, Factory, envtest.FromText(Solve), 5, func(id challenge.ID, solved envs.Episode) []envtest.Labelled {
		wrong, _ := Wrong(solved.Messages, rng.New(rng.Derive(id.Seed, "vectors/wrong")))
		correct := envtest.Actions(solved.Messages)[0]
		list := strings.TrimSuffix(strings.TrimPrefix(correct, "<answer>"), "</answer>")
		bare := strings.Trim(list, "[]")
		one := func(label, action string) envtest.Labelled {
			return envtest.Labelled{Label: label, Actions: []string{action}}
		}
		extra := []envtest.Labelled{
			one("wrong: near miss", wrong),
			one("tag: bare list in a code fence", "Working backwards:\n```\n<answer>"+bare+"</answer>\n```"),
			one("fallback: bracketed list in prose", "So the input could be "+list+", which works."),
			one("tag: last well-formed tag wins", "<answer>[]</answer> Wait, that is wrong. <answer>"+list+"</answer> <answer>see above</answer>"),
			one("malformed: prose without a list", "The input is some list of small integers."),
			one("malformed: broken tag", "<answer>[1, 2"),
			one("malformed: answer only in a think block", "<think><answer>"+list+"</answer></think>I cannot tell."),
			one("malformed: value out of range", "<answer>[2000000]</answer>"),
			one("malformed: input too long", "<answer>["+strings.Repeat("0, ", 64)+"0]</answer>"),
		}
		// A list of values at the limit makes most programs overflow.
		n := strings.Count(list, ",") + 1
		for _, v := range []string{"1000000", "-1000000"} {
			action := "<answer>[" + strings.Repeat(v+", ", n-1) + v + "]</answer>"
			if _, reason := solvedTask(t, solved).Score(action); strings.HasPrefix(reason, "program error: ") {
				extra = append(extra, one("program error: values at the limit", action))
				break
			}
		}
		return extra
	})
}

// solvedTask rebuilds the task of an episode from its prompt.
func solvedTask(t *testing.T, ep envs.Episode) task {
	t.Helper()
	p, want, ok := readPuzzle(ep.Messages)
	if !ok {
		t.Fatalf("%s: prompt not readable", ep.ID)
	}
	return task{program: p, want: want}
}

// TestGeneratorFollowsSpec checks a generated puzzle against the rules of
// spec/envs/abd.md: the first draws (op count, input length, input values),
// the op and value ranges, the group rules, and the prompt and info.
func TestGeneratorFollowsSpec(t *testing.T) {
	t.Parallel()
	groupOf := func(o lang.Op) string {
		return map[lang.Kind]string{
			lang.MapAdd: "add", lang.MapMul: "mul", lang.Reverse: "reverse",
			lang.SortAsc: "sort", lang.SortDesc: "sort",
			lang.FilterEven: "filter", lang.FilterOdd: "filter", lang.FilterGt: "filter", lang.FilterLt: "filter",
			lang.Take: "take", lang.Drop: "drop", lang.Step: "step",
		}[o.Kind]
	}
	for _, id := range envtest.IDs(Factory, 2000) {
		p := generate(id.Seed)
		s := rng.New(id.Seed)
		nOps, inLen := int(s.IntRange(3, 6)), int(s.IntRange(6, 12))
		if len(p.program) != nOps || len(p.input) != inLen {
			t.Fatalf("%s: %d ops, input of %d; the first draws say %d and %d", id, len(p.program), len(p.input), nOps, inLen)
		}
		for i, v := range p.input {
			if w := s.IntRange(-20, 20); v != w {
				t.Fatalf("%s: input[%d] = %d, draw says %d", id, i, v, w)
			}
		}
		out, err := lang.Default.Run(p.program, p.input)
		if err != nil || !slices.Equal(out, p.output) || len(out) == 0 {
			t.Fatalf("%s: output %v, rerun gives %v, %v (must be equal and non-empty)", id, p.output, out, err)
		}
		cur := slices.Clone(p.input)
		for i, o := range p.program {
			if i > 0 && groupOf(o) == groupOf(p.program[i-1]) {
				t.Fatalf("%s: ops %d and %d are both %s", id, i, i+1, groupOf(o))
			}
			n := int64(len(cur))
			switch o.Kind {
			case lang.MapAdd:
				if o.Arg == 0 || o.Arg < -9 || o.Arg > 9 {
					t.Fatalf("%s: %s", id, o)
				}
			case lang.MapMul:
				if !slices.Contains([]int64{-3, -2, -1, 2, 3}, o.Arg) {
					t.Fatalf("%s: %s", id, o)
				}
			case lang.Take:
				if o.Arg < (n+1)/2 || o.Arg > n-1 {
					t.Fatalf("%s: %s on %d values", id, o, n)
				}
			case lang.Drop:
				if o.Arg < 1 || o.Arg > n/2 {
					t.Fatalf("%s: %s on %d values", id, o, n)
				}
			case lang.Step:
				if o.Arg != 2 && o.Arg != 3 || n < 2 {
					t.Fatalf("%s: %s on %d values", id, o, n)
				}
			case lang.FilterGt, lang.FilterLt:
				e := o.Arg + 1
				if o.Kind == lang.FilterLt {
					e = o.Arg - 1
				}
				if !slices.Contains(cur, e) || n < 2 {
					t.Fatalf("%s: %s is not built around an element of %v", id, o, cur)
				}
			}
			cur, _ = lang.Default.Run(lang.Program{o}, cur)
			for _, v := range cur {
				if v < -1000 || v > 1000 {
					t.Fatalf("%s: value %d after op %d", id, v, i+1)
				}
			}
		}
		msgs, info, _ := Factory.New().Reset(id)
		if len(msgs) != 2 || msgs[0].Content != SystemPrompt || msgs[1].Content != userPrompt(p.program, p.output) {
			t.Fatalf("%s: messages differ from the templates", id)
		}
		if !strings.Contains(msgs[1].Content, "```\n"+p.program.String()+"\n```") || !strings.Contains(msgs[1].Content, "output was:\n"+lang.FormatList(p.output)+"\n") {
			t.Fatalf("%s: prompt does not show the program and output:\n%s", id, msgs[1].Content)
		}
		if info["ops"] != int64(nOps) || info["input_len"] != int64(inLen) || info["output_len"] != int64(len(p.output)) {
			t.Fatalf("%s: info %v", id, info)
		}
	}
}

// TestPromptText pins the user prompt of one puzzle to the verbatim text of
// spec/envs/abd.md.
func TestPromptText(t *testing.T) {
	t.Parallel()
	p, err := lang.Parse("map mul -3\nfilter gt -20\nsort desc\ndrop 2\nmap add 7")
	if err != nil {
		t.Fatal(err)
	}
	want := "Find an input for the following program in a small list language.\n\n" +
		"The program reads a list of integers and runs its instructions from top to bottom, each on the list the one before it produced:\n" +
		"- map add C: add C to every element.\n" +
		"- map mul C: multiply every element by C.\n" +
		"- reverse: reverse the order of the list.\n" +
		"- sort asc: sort into ascending order. sort desc: sort into descending order.\n" +
		"- filter even, filter odd: keep only the even elements (or only the odd ones), in order. 0 is even; -3 is odd.\n" +
		"- filter gt C, filter lt C: keep only the elements greater than C (or less than C), in order.\n" +
		"- take K: keep the first K elements (the whole list if it is shorter).\n" +
		"- drop K: remove the first K elements (all of them if the list is shorter).\n" +
		"- step K: keep the elements at positions 0, K, 2K, ... (the first element, then every K-th one after it).\n" +
		"The input may have at most 64 elements. Every input value, and every value the program computes, must be between -1000000 and 1000000; otherwise the program fails.\n\n" +
		"Program:\n```\nmap mul -3\nfilter gt -20\nsort desc\ndrop 2\nmap add 7\n```\n\n" +
		"When the program ran on a hidden input list, its output was:\n[4, -2, -8]\n\n" +
		"Give any input list on which the program outputs exactly this list; it need not be the hidden input. Answer with the list inside <answer></answer> tags, for example <answer>[3, 1, 4]</answer>."
	if got := userPrompt(p, []int64{4, -2, -8}); got != want {
		t.Fatalf("prompt:\n%s\nwant:\n%s", got, want)
	}
}
