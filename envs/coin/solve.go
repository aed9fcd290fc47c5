package coin

import (
	"regexp"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

var promptPattern = regexp.MustCompile(`\ACoin toss #[1-9][0-9]{5}: a fair coin has been tossed and nobody has seen how it landed\. Guess whether it landed heads or tails, and give your guess inside <answer></answer> tags\.\z`)

func isCoin(conversation []envs.Message) bool {
	for _, m := range conversation {
		if m.Role == envs.RoleUser && promptPattern.MatchString(m.Content) {
			return true
		}
	}
	return false
}

// Solve is the reference solver. The outcome is not in the prompt, so no
// solver can know it: Solve always guesses heads, a well-formed answer that
// wins half the time. ok is false when the conversation holds no coin
// question.
func Solve(conversation []envs.Message) (answer string, ok bool) {
	if !isCoin(conversation) {
		return "", false
	}
	return "<answer>" + Heads + "</answer>", true
}

// Wrong answers the opposite of Solve: tails. Unlike every other env's
// Wrong it is NOT guaranteed to lose; it loses exactly when Solve wins, half
// the time. r is unused and taken for the common signature.
func Wrong(conversation []envs.Message, _ *rng.Stream) (answer string, ok bool) {
	if !isCoin(conversation) {
		return "", false
	}
	return "<answer>" + Tails + "</answer>", true
}
