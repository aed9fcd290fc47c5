package verify_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/tictactoe"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestReexecuteNamesTheLie: a multi-turn transcript replays clean, and
// each way of recording what the env did not do fails T6 with a reason
// that says which part of the record differs from the replay.
func TestReexecuteNamesTheLie(t *testing.T) {
	t.Parallel()
	m := record.Miner{Hotkey: verifytest.Miner(0), Model: "org/model", Revision: "main", ModelHash: []byte{0xab}, Endpoint: "chute"}
	played, err := verifytest.Play(verifytest.Key(0).Public(), record.Seed{Anchor: verifytest.BlockAnchor(0)}, tictactoe.Name, m, record.DuelID{},
		func(c []envs.Message) string {
			move, ok := tictactoe.Solve(c)
			if !ok {
				panic("no move to make")
			}
			return move
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Reexecute(&played); err != nil {
		t.Fatalf("the transcript as played: %v", err)
	}
	// The conversation: the prompt, then each turn's reply and the env's
	// observations after it.
	prompt := slices.IndexFunc(played.Conversation, func(m envs.Message) bool { return m.Role == envs.RoleAssistant })
	second := prompt + 1 + slices.IndexFunc(played.Conversation[prompt+1:], func(m envs.Message) bool { return m.Role == envs.RoleAssistant })
	turns := len(played.TurnRewards)
	if prompt < 1 || second <= prompt+1 || turns < 2 {
		t.Fatalf("want a game of several turns, each move answered: prompt %d messages, second reply at %d, %d turns", prompt, second, turns)
	}
	long := strings.Repeat("y", 200)
	for _, tc := range []struct {
		name string
		edit func(*record.Transcript)
		want string
	}{
		{"challenge of no env", func(t *record.Transcript) { t.Challenge.Version = 99 }, "challenge tictactoe"},
		{"prompt cut short", func(t *record.Transcript) { t.Conversation = t.Conversation[:prompt-1] },
			fmt.Sprintf("prompt: the conversation has %d messages, the regenerated prompt %d", prompt-1, prompt)},
		{"prompt altered", func(t *record.Transcript) { t.Conversation[prompt-1].Content += " " },
			fmt.Sprintf("prompt: message %d", prompt-1)},
		{"no reply", func(t *record.Transcript) { t.Conversation = t.Conversation[:prompt] },
			"the conversation ends after 0 turns, before the episode is done"},
		{"ends before the episode", func(t *record.Transcript) { t.Conversation = t.Conversation[:second] },
			"the conversation ends after 1 turns, before the episode is done"},
		{"reply under another role", func(t *record.Transcript) { t.Conversation[second].Role = envs.RoleUser },
			fmt.Sprintf("message %d has role %q where the model's reply of turn 1 belongs", second, envs.RoleUser)},
		{"observation altered", func(t *record.Transcript) { t.Conversation[prompt+1].Content += " " },
			fmt.Sprintf("message %d is not the env's observation after turn 0", prompt+1)},
		{"turn rewards missing", func(t *record.Transcript) { t.TurnRewards = t.TurnRewards[:1] },
			"turn rewards: 1 recorded, the episode has more turns"},
		{"turn reward altered", func(t *record.Transcript) { t.TurnRewards[1]++ },
			fmt.Sprintf("turn 1 reward: recorded %d, replay gives %d", played.TurnRewards[1]+1, played.TurnRewards[1])},
		{"message after the end", func(t *record.Transcript) {
			t.Conversation = append(t.Conversation, envs.Message{Role: envs.RoleAssistant, Content: "<answer>1</answer>"})
		}, "1 messages recorded after the episode ended"},
		{"turn reward after the end", func(t *record.Transcript) { t.TurnRewards = append(t.TurnRewards, 0) },
			fmt.Sprintf("turn rewards: %d recorded, the episode has %d turns", turns+1, turns)},
		{"final reward altered", func(t *record.Transcript) { t.Reward++ },
			fmt.Sprintf("reward: recorded %d, replay gives %d", played.Reward+1, played.Reward)},
		{"reason altered", func(t *record.Transcript) { t.Reason = "lost" }, fmt.Sprintf("reason: recorded %q, replay gives %q", "lost", played.Reason)},
		{"long reason, quoted in part", func(t *record.Transcript) { t.Reason = long }, fmt.Sprintf("reason: recorded %q", long[:80]+"...")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lied := played
			lied.Conversation = slices.Clone(played.Conversation)
			lied.TurnRewards = slices.Clone(played.TurnRewards)
			tc.edit(&lied)
			err := verify.Reexecute(&lied)
			if !errors.Is(err, verify.ErrReexecution) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Reexecute: %v, want ErrReexecution saying %q", err, tc.want)
			}
		})
	}
}
