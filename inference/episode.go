package inference

import (
	"context"
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// EpisodeRecord is a played episode with the record of every call made to
// the miner. Calls[i] produced the i-th assistant message; after a failed
// call the episode is finished with empty actions that have no Call, so
// len(Calls) <= len(Rewards).
type EpisodeRecord struct {
	envs.Episode
	Calls []Call
	// Error is the first failed call's error, "" when every call answered.
	Error string
}

// Play runs one episode of factory's env for id against ep: reset, then
// ask the miner with the whole conversation so far and step the env with
// its answer until the episode is done.
//
// A failed call (timeout, HTTP error, garbage) is not an error of Play: the
// env is stepped with the empty answer "" instead, so the env decides what a
// failure scores (the same as a reply it cannot parse: 0 for most envs, the
// env's forfeit score for games), and the miner is not asked again: further
// steps, if the env needs them to finish, are "" too. Replaying the
// recorded actions through envs.Replay gives the same rewards.
//
// Play returns an error only when the episode cannot be judged: the env
// refuses id, the env fails, it does not finish within MaxTurns, or ctx
// ended (the validator is stopping; recording a 0 would blame the miner).
// The partial record is returned with the error.
func Play(ctx context.Context, client *Client, ep Endpoint, factory envs.Factory, id challenge.ID) (EpisodeRecord, error) {
	return play(factory, id, func(conversation []envs.Message) (Reply, error) {
		return client.Complete(ctx, ep, id, conversation)
	})
}

// Unasked records an episode of id in which the miner is not asked at
// all: its first call fails, without an attempt, with reason (kind
// KindUnasked), and the env is stepped with the empty answer "" as after
// any failed call, so the transcript re-executes like any other.
func Unasked(factory envs.Factory, id challenge.ID, reason string) (EpisodeRecord, error) {
	return play(factory, id, func([]envs.Message) (Reply, error) {
		return Reply{Call: Call{ErrorKind: KindUnasked, Error: reason}}, ErrUnasked
	})
}

// play runs one episode, asking ask for each answer until a call fails.
func play(factory envs.Factory, id challenge.ID, ask func(conversation []envs.Message) (Reply, error)) (EpisodeRecord, error) {
	env := factory.New()
	obs, info, err := env.Reset(id)
	if err != nil {
		return EpisodeRecord{}, fmt.Errorf("play %s: %w", id, err)
	}
	rec := EpisodeRecord{Episode: envs.Episode{ID: id, Info: info, Messages: append([]envs.Message(nil), obs...)}}
	maxTurns := factory.Spec().MaxTurns
	for turn := 0; !rec.Done; turn++ {
		if turn >= maxTurns {
			return rec, fmt.Errorf("play %s: not done after MaxTurns=%d", id, maxTurns)
		}
		action := ""
		if rec.Error == "" {
			reply, err := ask(rec.Messages)
			if errors.Is(err, ErrCanceled) {
				return rec, fmt.Errorf("play %s turn %d: %w", id, turn, err)
			}
			rec.Calls = append(rec.Calls, reply.Call)
			if err != nil {
				rec.Error = reply.Call.Error
			}
			action = reply.Content
		}
		out, err := env.Step(action)
		if err != nil {
			return rec, fmt.Errorf("play %s turn %d: %w", id, turn, err)
		}
		rec.Messages = append(rec.Messages, envs.Message{Role: envs.RoleAssistant, Content: action})
		rec.Messages = append(rec.Messages, out.Observation...)
		rec.Rewards = append(rec.Rewards, out.Reward)
		rec.Reward, rec.Reason, rec.Done = out.Reward, out.Reason, out.Done
	}
	return rec, nil
}
