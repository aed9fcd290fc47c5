// Package sat is the planted k-SAT environment (spec/envs/sat.md): the model
// gets a satisfiable CNF formula in DIMACS form and must answer with an
// assignment that satisfies every clause. Any satisfying assignment scores,
// not only the planted one, so the env checks reasoning rather than recall
// of a hidden key.
package sat

import (
	"fmt"
	"strings"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// Name and Version identify this environment in challenge IDs.
const (
	Name    = "sat"
	Version = 1
)

// Factory makes sat v1 environments.
var Factory envs.Factory = envs.SingleTurn(generator{})

type generator struct{}

func (generator) Spec() envs.Spec {
	return envs.Spec{
		Name:        Name,
		Version:     Version,
		Description: "Planted random 3-SAT: find an assignment that satisfies every clause of a satisfiable CNF formula.",
		Observation: envs.Space{
			Kind:        "text",
			Description: "a system message and a user message holding a 3-CNF formula in DIMACS form with 8 to 20 variables",
		},
		Action: envs.Space{
			Kind:        "text",
			Description: "an assignment as signed variable numbers inside <answer></answer>, e.g. <answer>1 -2 3</answer>",
			MaxBytes:    envs.MaxAnswerBytes,
		},
		MaxTurns:  1,
		MinReward: 0,
		MaxReward: 1,
	}
}

func (generator) Generate(id challenge.ID) ([]envs.Message, envs.Info, envs.Task) {
	f := Generate(id.Seed)
	info := envs.BaseInfo(id)
	info["n"] = int64(f.N)
	info["k"] = int64(K)
	info["m"] = int64(len(f.Clauses))
	msgs := []envs.Message{
		{Role: envs.RoleSystem, Content: systemPrompt},
		{Role: envs.RoleUser, Content: userPrompt(f)},
	}
	return msgs, info, task{f}
}

const systemPrompt = "You are a careful logician. Work out the problem, then give only the final assignment inside <answer></answer> tags."

// promptIntro opens every user prompt; Solve recognises the env by it.
const promptIntro = "Find a truth assignment that satisfies every clause of the following Boolean formula in conjunctive normal form (CNF)."

func userPrompt(f Formula) string {
	var b strings.Builder
	b.WriteString(promptIntro + "\n\n")
	fmt.Fprintf(&b, "The formula is written in DIMACS CNF format. The line \"p cnf %d %d\" says that there are %d variables, numbered 1 to %d, and %d clauses. ", f.N, len(f.Clauses), f.N, f.N, len(f.Clauses))
	b.WriteString("Each following line is one clause: a list of literals ended by 0. The literal i stands for \"variable i is true\" and -i for \"variable i is false\". ")
	b.WriteString("A clause is satisfied when at least one of its literals is true. The formula is satisfiable.\n\n")
	b.WriteString(f.DIMACS())
	fmt.Fprintf(&b, "\nGive your final answer inside <answer></answer> tags as a space-separated list of %d signed variable numbers, each variable exactly once: i if variable i is true, -i if it is false. ", f.N)
	b.WriteString("For example, with 4 variables: <answer>1 -2 -3 4</answer>")
	return b.String()
}
