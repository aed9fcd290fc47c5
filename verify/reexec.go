package verify

import (
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/internal/textcut"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ErrReexecution is wrapped by every disagreement between a transcript and
// the replay of its challenge.
var ErrReexecution = errors.New("re-execution disagrees")

// Reexecute regenerates t's challenge from its ID, checks that the recorded
// prompt is the regenerated one, replays the recorded replies through a
// fresh env and checks every observation, every turn reward, the final
// reward and the reason against the record (spec/verify.md step T6).
//
// The replies are data: the env parses them, nothing executes them.
func Reexecute(t *record.Transcript) (err error) {
	f, err := registry.ForID(t.Challenge)
	if err != nil {
		return fmt.Errorf("%w: challenge %s: %v", ErrReexecution, t.Challenge, err)
	}
	defer func() {
		// An env that panics on recorded data is a bug in this release;
		// the audit reports it against the transcript instead of dying.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: env %s v%d panicked replaying the transcript: %v", ErrReexecution, t.Env, t.EnvVersion, r)
		}
	}()
	env := f.New()
	obs, _, err := env.Reset(t.Challenge)
	if err != nil {
		return fmt.Errorf("%w: regenerate %s: %v", ErrReexecution, t.Challenge, err)
	}
	conv := t.Conversation
	if len(conv) < len(obs) {
		return fmt.Errorf("%w: prompt: the conversation has %d messages, the regenerated prompt %d", ErrReexecution, len(conv), len(obs))
	}
	for i, m := range obs {
		if conv[i] != m {
			return fmt.Errorf("%w: prompt: message %d (%s) is not the regenerated challenge's", ErrReexecution, i, conv[i].Role)
		}
	}
	pos, turn := len(obs), 0
	var last envs.Outcome
	for done := false; !done; turn++ {
		if pos >= len(conv) {
			return fmt.Errorf("%w: the conversation ends after %d turns, before the episode is done", ErrReexecution, turn)
		}
		if conv[pos].Role != envs.RoleAssistant {
			return fmt.Errorf("%w: message %d has role %q where the model's reply of turn %d belongs", ErrReexecution, pos, conv[pos].Role, turn)
		}
		out, err := env.Step(conv[pos].Content)
		if err != nil {
			return fmt.Errorf("%w: turn %d: %v", ErrReexecution, turn, err)
		}
		pos++
		for _, o := range out.Observation {
			if pos >= len(conv) || conv[pos] != o {
				return fmt.Errorf("%w: message %d is not the env's observation after turn %d", ErrReexecution, pos, turn)
			}
			pos++
		}
		if turn >= len(t.TurnRewards) {
			return fmt.Errorf("%w: turn rewards: %d recorded, the episode has more turns", ErrReexecution, len(t.TurnRewards))
		}
		if t.TurnRewards[turn] != int64(out.Reward) {
			return fmt.Errorf("%w: turn %d reward: recorded %d, replay gives %d", ErrReexecution, turn, t.TurnRewards[turn], out.Reward)
		}
		done, last = out.Done, out
	}
	if pos != len(conv) {
		return fmt.Errorf("%w: %d messages recorded after the episode ended", ErrReexecution, len(conv)-pos)
	}
	if len(t.TurnRewards) != turn {
		return fmt.Errorf("%w: turn rewards: %d recorded, the episode has %d turns", ErrReexecution, len(t.TurnRewards), turn)
	}
	if t.Reward != int64(last.Reward) {
		return fmt.Errorf("%w: reward: recorded %d, replay gives %d", ErrReexecution, t.Reward, last.Reward)
	}
	if want := record.RecordedReason(last.Reason); t.Reason != want {
		return fmt.Errorf("%w: reason: recorded %q, replay gives %q", ErrReexecution, clip(t.Reason), clip(want))
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return textcut.Prefix(s, 80) + "..."
	}
	return s
}
