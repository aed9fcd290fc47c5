// Package mult8 is the exact-arithmetic environment: the product of two
// eight-digit numbers, one answer, reward 1 when it is exactly right
// (spec/envs/mult8.md).
//
// Long multiplication is easy to check and hard to bluff: a model either
// carries every digit or it does not, so mult8 separates careful reasoning
// from pattern completion with a reward nobody can argue about.
package mult8

import (
	"fmt"
	"strconv"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Name and Version identify this environment in challenge IDs.
const (
	Name    = "mult8"
	Version = 1
)

// Digits is the length of each factor, reported in info as "digits".
const Digits = 8

// Factor bounds: every eight-digit number.
const (
	minFactor = 10_000_000
	maxFactor = 99_999_999
)

// Prompt texts, verbatim from spec/envs/mult8.md.
const (
	SystemPrompt = "You are a careful calculator. Work the problem out however you like, then give your final answer as a single integer inside <answer></answer> tags, for example <answer>56088</answer>."
	userPrompt   = "What is %d multiplied by %d? Give the exact product inside <answer></answer> tags."
)

// Factory makes mult8 v1 environments.
var Factory = envs.SingleTurn(generator{})

type generator struct{}

func (generator) Spec() envs.Spec {
	return envs.Spec{
		Name:        Name,
		Version:     Version,
		Description: "Multiply two eight-digit numbers exactly; reward 1 for the exact product, else 0.",
		Observation: envs.Space{Kind: "chat", Description: "a system message and a user message asking for the product of two eight-digit numbers"},
		Action:      envs.Space{Kind: "text", Description: "free text with the product as an integer inside <answer></answer> tags", MaxBytes: envs.MaxAnswerBytes},
		MaxTurns:    1,
		MinReward:   0,
		MaxReward:   1,
	}
}

// Generate draws the two factors, a then b, from the challenge's stream.
func (generator) Generate(id challenge.ID) ([]envs.Message, envs.Info, envs.Task) {
	s := rng.New(id.Seed)
	a := s.IntRange(minFactor, maxFactor)
	b := s.IntRange(minFactor, maxFactor)
	msgs := []envs.Message{
		{Role: envs.RoleSystem, Content: SystemPrompt},
		{Role: envs.RoleUser, Content: fmt.Sprintf(userPrompt, a, b)},
	}
	info := envs.BaseInfo(id)
	info["digits"] = int64(Digits)
	info["a"] = a
	info["b"] = b
	// a*b < 10^16 fits an int64 with room to spare.
	return msgs, info, task{want: strconv.FormatInt(a*b, 10)}
}

// Reasons particular to mult8 (the shared ones are in package envs).
const (
	ReasonNoInteger       = "no integer found"
	ReasonNoTaggedInteger = "no integer found in the <answer> tag"
)

type task struct{ want string }

// Score implements the rules of spec/envs/mult8.md, "Scoring".
func (t task) Score(answer string) (int, string) {
	n, reason := extract(envs.Clean(answer))
	switch {
	case reason != "":
		return 0, reason
	case !n.neg && n.digits == t.want:
		return 1, envs.ReasonCorrect
	default:
		return 0, fmt.Sprintf("wrong: got %s, want %s", n, t.want)
	}
}

// extract finds the answer in cleaned text: the last integer inside the last
// <answer> tag pair or, when there is no tag pair, the last integer in the
// whole text. reason is non-empty when there is no usable integer.
func extract(text string) (integer, string) {
	n, ok := integer{}, false
	if content, tagged := envs.LastTagged(text, "answer"); tagged {
		if n, ok = lastInteger(content); !ok {
			return n, ReasonNoTaggedInteger
		}
	} else if n, ok = lastInteger(text); !ok {
		return n, ReasonNoInteger
	}
	if n.written > MaxDigits {
		return n, fmt.Sprintf("integer too long: %d digits, limit %d", n.written, MaxDigits)
	}
	return n, ""
}
