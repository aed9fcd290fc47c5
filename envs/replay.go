package envs

import (
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
)

// Episode is a played episode: the whole conversation (observations and the
// actions in between, in order), the reward of every step, and the final
// reward and reason.
type Episode struct {
	ID       challenge.ID
	Info     Info
	Messages []Message
	Rewards  []int
	Reward   int
	Reason   string
	Done     bool
}

// Replay plays actions through a fresh env from f, the way an auditor
// re-executes a transcript. It stops at the first step that ends the episode;
// actions left over are an error, because a recorded conversation that goes
// on after its end was not produced by this env.
func Replay(f Factory, id challenge.ID, actions []string) (Episode, error) {
	env := f.New()
	obs, info, err := env.Reset(id)
	if err != nil {
		return Episode{}, err
	}
	ep := Episode{ID: id, Info: info, Messages: append([]Message(nil), obs...)}
	for i, a := range actions {
		if ep.Done {
			return ep, fmt.Errorf("replay %s: %d actions after the episode ended at action %d", id, len(actions)-i, i)
		}
		out, err := env.Step(a)
		if err != nil {
			return ep, fmt.Errorf("replay %s: action %d: %w", id, i, err)
		}
		ep.Messages = append(ep.Messages, Message{Role: RoleAssistant, Content: a})
		ep.Messages = append(ep.Messages, out.Observation...)
		ep.Rewards = append(ep.Rewards, out.Reward)
		ep.Reward, ep.Reason, ep.Done = out.Reward, out.Reason, out.Done
	}
	return ep, nil
}

// Play runs one episode of id with next choosing every action from the conversation so far,
// as a model would: the reference miners, the demo and the tests play through it.
func Play(f Factory, id challenge.ID, next func(conversation []Message) string) (Episode, error) {
	env := f.New()
	obs, info, err := env.Reset(id)
	if err != nil {
		return Episode{}, err
	}
	ep := Episode{ID: id, Info: info, Messages: append([]Message(nil), obs...)}
	for turn := 0; !ep.Done; turn++ {
		if turn >= f.Spec().MaxTurns {
			return ep, fmt.Errorf("play %s: not done after %d turns", id, f.Spec().MaxTurns)
		}
		a := next(ep.Messages)
		out, err := env.Step(a)
		if err != nil {
			return ep, fmt.Errorf("play %s: turn %d: %w", id, turn, err)
		}
		ep.Messages = append(ep.Messages, Message{Role: RoleAssistant, Content: a})
		ep.Messages = append(ep.Messages, out.Observation...)
		ep.Rewards = append(ep.Rewards, out.Reward)
		ep.Reward, ep.Reason, ep.Done = out.Reward, out.Reason, out.Done
	}
	return ep, nil
}

// Actions returns the assistant messages of the episode in order.
func (ep Episode) Actions() []string {
	var out []string
	for _, m := range ep.Messages {
		if m.Role == RoleAssistant {
			out = append(out, m.Content)
		}
	}
	return out
}
