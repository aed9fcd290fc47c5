// Package abd is the abduction environment (spec/envs/abd.md): the model
// sees a procedurally generated program in a small list language (package
// lang) and the output it produced, and must give an input on which the
// program produces that output. Any such input scores, not only the hidden
// one: the env runs its own interpreter on the model's list, so it checks
// reasoning backwards through the program rather than recall of a key. The
// model's answer is data for the interpreter; nothing in it is executed.
package abd

import (
	"fmt"
	"slices"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd/lang"
)

// Name and Version identify this environment in challenge IDs.
const (
	Name    = "abd"
	Version = 1
)

// Factory makes abd v1 environments.
var Factory envs.Factory = envs.SingleTurn(generator{})

type generator struct{}

func (generator) Spec() envs.Spec {
	return envs.Spec{
		Name:        Name,
		Version:     Version,
		Description: "Abduction: given a program in a small list language and its output, find an input that produces that output.",
		Observation: envs.Space{
			Kind:        "chat",
			Description: "a system message and a user message holding a program of 3 to 6 list operations and the list it output",
		},
		Action: envs.Space{
			Kind:        "text",
			Description: "free text with an input list of integers inside <answer></answer> tags, e.g. <answer>[3, 1, 4]</answer>",
			MaxBytes:    envs.MaxAnswerBytes,
		},
		MaxTurns:  1,
		MinReward: 0,
		MaxReward: 1,
	}
}

func (generator) Generate(id challenge.ID) ([]envs.Message, envs.Info, envs.Task) {
	p := generate(id.Seed)
	info := envs.BaseInfo(id)
	info["ops"] = int64(len(p.program))
	info["input_len"] = int64(len(p.input))
	info["output_len"] = int64(len(p.output))
	msgs := []envs.Message{
		{Role: envs.RoleSystem, Content: SystemPrompt},
		{Role: envs.RoleUser, Content: userPrompt(p.program, p.output)},
	}
	return msgs, info, task{program: p.program, want: p.output}
}

// Reasons particular to abd (the shared ones are in package envs).
const (
	ReasonNoList = "no list found"
)

type task struct {
	program lang.Program
	want    []int64
}

// Score implements spec/envs/abd.md, "Scoring": find the list, check the
// input limits, run the program on it and compare the output.
func (t task) Score(answer string) (int, string) {
	l, ok := extract(envs.Clean(answer))
	lim := lang.Default
	switch {
	case !ok:
		return 0, ReasonNoList
	case len(l.values) > lim.MaxLen:
		return 0, fmt.Sprintf("input too long: %d values > %d", len(l.values), lim.MaxLen)
	case l.outOfRange != "":
		return 0, fmt.Sprintf("value out of range: %s not in [%d, %d]", l.outOfRange, -lim.MaxValue, lim.MaxValue)
	}
	got, err := lim.Run(t.program, l.values)
	if err != nil {
		return 0, "program error: " + err.Error()
	}
	if !slices.Equal(got, t.want) {
		return 0, fmt.Sprintf("output differs: got %s, want %s", lang.FormatList(got), lang.FormatList(t.want))
	}
	return 1, envs.ReasonCorrect
}
