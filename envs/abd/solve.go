package abd

import (
	"slices"
	"strings"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd/lang"
	"github.com/affine-ledger/ledger/rng"
)

// readPuzzle finds the abd question in a conversation: the last user
// message that opens with the abd prompt, with the program and output read
// back from its text.
func readPuzzle(conversation []envs.Message) (lang.Program, []int64, bool) {
	for i := len(conversation) - 1; i >= 0; i-- {
		m := conversation[i]
		if m.Role != envs.RoleUser || !strings.HasPrefix(m.Content, promptIntro) {
			continue
		}
		if p, out, ok := parsePrompt(m.Content); ok {
			return p, out, true
		}
	}
	return nil, nil, false
}

func parsePrompt(text string) (lang.Program, []int64, bool) {
	_, rest, ok := strings.Cut(text, "\n"+programHeader)
	if !ok {
		return nil, nil, false
	}
	programText, rest, ok := strings.Cut(rest, programFooter)
	if !ok {
		return nil, nil, false
	}
	rest, ok = strings.CutPrefix(rest, outputHeader)
	if !ok || !strings.HasPrefix(rest, "[") {
		return nil, nil, false
	}
	line, _, _ := strings.Cut(rest, "\n")
	out, end, ok := readBracketed(line, 0)
	if !ok || end != len(line) || out.outOfRange != "" {
		return nil, nil, false
	}
	p, err := lang.Parse(programText)
	if err != nil {
		return nil, nil, false
	}
	return p, out.values, true
}

// Solve is the reference solver: it reads the program and its output from
// the prompt and works backwards through the program (lang.Invert), which
// finds an input for every output a program can produce. ok is false when
// the conversation holds no abd question, or one whose output no input
// produces.
func Solve(conversation []envs.Message) (answer string, ok bool) {
	p, out, ok := readPuzzle(conversation)
	if !ok {
		return "", false
	}
	input, err := lang.Default.Invert(p, out)
	if err != nil {
		return "", false
	}
	return formatAnswer(input), true
}

func formatAnswer(xs []int64) string { return "<answer>" + lang.FormatList(xs) + "</answer>" }

// Wrong answers an abd question with a near miss: a correct input with one
// value nudged, one value inserted or one removed, kept only if the program
// then outputs something else (or fails). The answer is a well-formed list
// and never scores.
func Wrong(conversation []envs.Message, r *rng.Stream) (answer string, ok bool) {
	p, want, ok := readPuzzle(conversation)
	if !ok {
		return "", false
	}
	base, err := lang.Default.Invert(p, want)
	if err != nil {
		base = want
	}
	for range 32 {
		cand := nearMiss(base, r)
		got, err := lang.Default.Run(p, cand)
		if err != nil || !slices.Equal(got, want) {
			return formatAnswer(cand), true
		}
	}
	// The empty input outputs the empty list, and no abd output is empty.
	// For a foreign empty output, a value beyond the limit never scores.
	if len(want) > 0 {
		return formatAnswer(nil), true
	}
	return formatAnswer([]int64{lang.Default.MaxValue + 1}), true
}

func nearMiss(xs []int64, r *rng.Stream) []int64 {
	xs = slices.Clone(xs)
	if len(xs) == 0 {
		return []int64{r.IntRange(-inputValueBound, inputValueBound)}
	}
	switch r.Pick(3) {
	case 0:
		d := r.IntRange(1, 3)
		if r.Chance(1, 2) {
			d = -d
		}
		xs[r.Pick(len(xs))] += d
	case 1:
		xs = slices.Insert(xs, r.Pick(len(xs)+1), r.IntRange(-inputValueBound, inputValueBound))
	default:
		i := r.Pick(len(xs))
		xs = slices.Delete(xs, i, i+1)
	}
	return xs
}
