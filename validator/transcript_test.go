package validator

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Every field of a transcript comes from the episode, its calls, the
// miner's commitment and the duel.
func TestNewTranscriptFillsEveryField(t *testing.T) {
	seed := record.Seed{Anchor: record.Anchor{Number: 812, Hash: record.Hash{1}}, Counter: 7}
	id, err := seed.Derive(keys.PublicKey{9}, "tictactoe", 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := inference.EpisodeRecord{
		Episode: envs.Episode{
			ID: id,
			Messages: []envs.Message{
				{Role: envs.RoleSystem, Content: "rules"}, {Role: envs.RoleUser, Content: "board"},
				{Role: envs.RoleAssistant, Content: "<move>5</move>"}, {Role: envs.RoleUser, Content: "board 2"},
				{Role: envs.RoleAssistant, Content: ""},
			},
			Rewards: []int{0, -1}, Reward: -1, Reason: "empty answer", Done: true,
		},
		Calls: []inference.Call{
			{Attempts: 1, Status: 200, LatencyMS: 40, PromptTokens: 30, CompletionTokens: 5},
			{Attempts: 3, Status: 503, LatencyMS: 100, Error: "busy"},
		},
		Error: "miner x: attempt 3/3: HTTP 503 " + strings.Repeat("é", 3000),
	}
	v := keys.PublicKey{9}
	m := record.Miner{Hotkey: keys.PublicKey{3}, UID: 4, Model: "org/m", Revision: "r1", ModelHash: make([]byte, 32), Endpoint: "http://127.0.0.1:9/v1"}
	d := record.DuelID{5}
	started := time.UnixMilli(1_700_000_000_000)
	tr := newTranscript(v, m, d, seed, rec, started, started.Add(250*time.Millisecond))
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Encode(); err != nil {
		t.Fatal(err)
	}
	switch {
	case tr.Challenge != id || tr.Env != "tictactoe" || tr.EnvVersion != 1:
		t.Fatalf("challenge %s env %s v%d", tr.Challenge, tr.Env, tr.EnvVersion)
	case tr.Format != record.TranscriptFormat || tr.Seed == nil || *tr.Seed != seed:
		t.Fatalf("format %d seed %+v, want %+v", tr.Format, tr.Seed, seed)
	case tr.Validator != v || tr.Miner.Hotkey != m.Hotkey || tr.Miner.UID != 4 || tr.Duel != d:
		t.Fatalf("identity: %+v", tr)
	case len(tr.Conversation) != 5 || tr.Conversation[2].Content != "<move>5</move>":
		t.Fatalf("conversation %+v", tr.Conversation)
	case len(tr.TurnRewards) != 2 || tr.TurnRewards[1] != -1 || tr.Reward != -1 || tr.Reason != "empty answer":
		t.Fatalf("scoring %v %d %q", tr.TurnRewards, tr.Reward, tr.Reason)
	case tr.LatencyMS != 140 || tr.Attempts != 4 || tr.HTTPStatus != 503:
		t.Fatalf("calls: latency %d attempts %d status %d", tr.LatencyMS, tr.Attempts, tr.HTTPStatus)
	case tr.Usage == nil || tr.Usage.PromptTokens != 30 || tr.Usage.CompletionTokens != 5:
		t.Fatalf("usage %+v", tr.Usage)
	case tr.StartedMS != 1_700_000_000_000 || tr.FinishedMS != 1_700_000_000_250:
		t.Fatalf("times %d..%d", tr.StartedMS, tr.FinishedMS)
	case tr.Invocation == (record.InvocationID{}):
		t.Fatal("no invocation ID")
	case len(tr.Error) > record.MaxTextField || !utf8.ValidString(tr.Error) || !strings.HasPrefix(tr.Error, "miner x: attempt 3/3"):
		t.Fatalf("error of %d bytes, valid %v", len(tr.Error), utf8.ValidString(tr.Error))
	}
	again := newTranscript(v, m, d, seed, rec, started, started)
	if again.Invocation == tr.Invocation {
		t.Fatal("two runs share an invocation ID")
	}
	// No call reported tokens: usage is null. A clock going backwards
	// does not make finished precede started.
	rec.Calls = []inference.Call{{Attempts: 1, Status: 200}}
	tr = newTranscript(v, m, d, seed, rec, started, started.Add(-time.Second))
	if tr.Usage != nil || tr.FinishedMS != tr.StartedMS || tr.HTTPStatus != 200 {
		t.Fatalf("usage %v, times %d..%d", tr.Usage, tr.StartedMS, tr.FinishedMS)
	}
}
