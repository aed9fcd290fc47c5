// Package coin is the guessing baseline: a fair coin is tossed and the model
// guesses heads or tails (spec/envs/coin.md).
//
// No model can beat it: the outcome is not in the prompt, so every model's
// expected reward is 1/2. What coin measures is format-following (a model
// that cannot put one word in tags scores below 1/2) and, across many
// challenges, that the pipeline scores fairly: a validator whose coin
// results drift from 1/2 is miscounting or choosing its challenges.
package coin

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Name and Version identify this environment in challenge IDs.
const (
	Name    = "coin"
	Version = 1
)

// The two outcomes, as answers spell them.
const (
	Heads = "heads"
	Tails = "tails"
)

// TossLabel is the sub-stream label of the toss number (see Generate).
const TossLabel = "coin/toss"

// Prompt texts, verbatim from spec/envs/coin.md.
const (
	SystemPrompt = "You are playing a coin-guessing game. Answer with one word, heads or tails, inside <answer></answer> tags: either <answer>heads</answer> or <answer>tails</answer>."
	userPrompt   = "Coin toss #%d: a fair coin has been tossed and nobody has seen how it landed. Guess whether it landed heads or tails, and give your guess inside <answer></answer> tags."
)

// Factory makes coin v1 environments.
var Factory = envs.SingleTurn(generator{})

type generator struct{}

func (generator) Spec() envs.Spec {
	return envs.Spec{
		Name:        Name,
		Version:     Version,
		Description: "Guess a fair coin toss; reward 1 if the guess matches, else 0 (expected 1/2 for any model).",
		Observation: envs.Space{Kind: "chat", Description: "a system message and a user message asking for a guess of a numbered coin toss"},
		Action:      envs.Space{Kind: "text", Description: "free text with heads or tails inside <answer></answer> tags", MaxBytes: envs.MaxAnswerBytes},
		MaxTurns:    1,
		MinReward:   0,
		MaxReward:   1,
	}
}

// Generate tosses the coin with the first draw of the challenge's stream.
// The toss number only makes prompts differ from one challenge to the next;
// it comes from a sub-stream so that it says nothing about the outcome.
func (generator) Generate(id challenge.ID) ([]envs.Message, envs.Info, envs.Task) {
	outcome := Tails
	if rng.New(id.Seed).Chance(1, 2) {
		outcome = Heads
	}
	toss := rng.New(rng.Derive(id.Seed, TossLabel)).IntRange(100000, 999999)
	msgs := []envs.Message{
		{Role: envs.RoleSystem, Content: SystemPrompt},
		{Role: envs.RoleUser, Content: fmt.Sprintf(userPrompt, toss)},
	}
	info := envs.BaseInfo(id)
	info["toss"] = toss
	return msgs, info, task{outcome: outcome}
}

// Reasons particular to coin (the shared ones are in package envs).
const (
	ReasonNoGuess       = "no heads or tails found"
	ReasonNoTaggedGuess = "no heads or tails in the <answer> tag"
	ReasonBoth          = "the <answer> tag names both heads and tails"
)

type task struct{ outcome string }

// Score implements the rules of spec/envs/coin.md, "Scoring".
func (t task) Score(answer string) (int, string) {
	guess, reason := extract(envs.Clean(answer))
	switch {
	case reason != "":
		return 0, reason
	case guess == t.outcome:
		return 1, envs.ReasonCorrect
	default:
		return 0, fmt.Sprintf("wrong: got %s, want %s", guess, t.outcome)
	}
}

// extract finds the guess in cleaned text: the one side named in the last
// <answer> tag pair or, when there is no tag pair, the last side named in
// the whole text. reason is non-empty when there is no usable guess.
func extract(text string) (guess, reason string) {
	if content, tagged := envs.LastTagged(text, "answer"); tagged {
		heads, tails, last := sides(content)
		switch {
		case heads && tails:
			return "", ReasonBoth
		case last == "":
			return "", ReasonNoTaggedGuess
		}
		return last, ""
	}
	if _, _, last := sides(text); last != "" {
		return last, ""
	}
	return "", ReasonNoGuess
}
