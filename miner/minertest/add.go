package minertest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Add is a single-turn fake env "addtest" v1: add two four-digit numbers,
// answer in <answer> tags; 1 for right, 0 otherwise.
var Add = envs.SingleTurn(addGen{})

type addGen struct{}

func (addGen) Spec() envs.Spec {
	return envs.Spec{
		Name: "addtest", Version: 1, Description: "test env: add two numbers",
		Observation: envs.Space{Kind: "text", Description: "a sum to compute"},
		Action:      envs.Space{Kind: "text", Description: "<answer>N</answer>", MaxBytes: envs.MaxAnswerBytes},
		MaxTurns:    1, MinReward: 0, MaxReward: 1,
	}
}

func addOperands(id challenge.ID) (int64, int64) {
	r := rng.New(id.Seed)
	return r.IntRange(1000, 9999), r.IntRange(1000, 9999)
}

func (addGen) Generate(id challenge.ID) ([]envs.Message, envs.Info, envs.Task) {
	a, b := addOperands(id)
	msgs := []envs.Message{
		{Role: envs.RoleSystem, Content: "You are a careful calculator."},
		{Role: envs.RoleUser, Content: fmt.Sprintf("[addtest] What is %d + %d? Reply with <answer>N</answer>.", a, b)},
	}
	info := envs.BaseInfo(id)
	info["a"], info["b"] = a, b
	return msgs, info, addTask(a + b)
}

type addTask int64

func (t addTask) Score(answer string) (int, string) {
	tagged, ok := envs.LastTagged(envs.Clean(answer), "answer")
	if !ok {
		return 0, "no <answer> tag"
	}
	n, err := strconv.ParseInt(strings.TrimSpace(tagged), 10, 64)
	if err != nil {
		return 0, "answer is not an integer"
	}
	if n != int64(t) {
		return 0, fmt.Sprintf("wrong: %d", n)
	}
	return 1, envs.ReasonCorrect
}

var addPrompt = regexp.MustCompile(`^\[addtest\] What is (\d+) \+ (\d+)\?`)

func addQuestion(conversation []envs.Message) (int64, bool) {
	for _, m := range conversation {
		if m.Role != envs.RoleUser {
			continue
		}
		if g := addPrompt.FindStringSubmatch(m.Content); g != nil {
			a, _ := strconv.ParseInt(g[1], 10, 64)
			b, _ := strconv.ParseInt(g[2], 10, 64)
			return a + b, true
		}
	}
	return 0, false
}

// SolveAdd answers addtest right.
func SolveAdd(conversation []envs.Message) (string, bool) {
	sum, ok := addQuestion(conversation)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("<answer>%d</answer>", sum), true
}

// WrongAdd answers addtest off by 1 to 10.
func WrongAdd(conversation []envs.Message, r *rng.Stream) (string, bool) {
	sum, ok := addQuestion(conversation)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("<answer>%d</answer>", sum+r.IntRange(1, 10)), true
}
