package tictactoe

import (
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

// conversationAt is a tictactoe conversation whose last user message shows b.
func conversationAt(b Board) []envs.Message {
	return []envs.Message{
		{Role: envs.RoleSystem, Content: systemPrompt},
		{Role: envs.RoleUser, Content: "Game 00000000. You are X.\n\n" + b.Render() + "\n\n" + replyLine},
	}
}

func TestSolveRecognisesOnlyTictactoe(t *testing.T) {
	t.Parallel()
	foreign := []envs.Message{
		{Role: envs.RoleSystem, Content: "You are a careful calculator. Put the final answer in <answer></answer> tags."},
		{Role: envs.RoleUser, Content: "What is 123456 * 654321?"},
	}
	if a, ok := Solve(foreign); ok || a != "" {
		t.Errorf("foreign prompt: %q %v", a, ok)
	}
	if _, ok := Wrong(foreign, rng.New([32]byte{})); ok {
		t.Error("Wrong accepted a foreign prompt")
	}
	// A board without the game's name, a finished game, no user message.
	unnamed := []envs.Message{{Role: envs.RoleUser, Content: Board{}.Render() + "\n" + replyLine}}
	for name, c := range map[string][]envs.Message{
		"unnamed":  unnamed,
		"finished": conversationAt(boardOf(t, "XXXOO....")),
		"full":     conversationAt(boardOf(t, "XOXXOOOXX")),
		"no user":  conversationAt(Board{})[:1],
		"nil":      nil,
	} {
		if a, ok := Solve(c); ok {
			t.Errorf("%s: solved as %q", name, a)
		}
	}
	if a, ok := Solve(conversationAt(boardOf(t, "XX.OO...."))); !ok || a != "<move>3</move>" {
		t.Errorf("immediate win: %q %v", a, ok)
	}
	if a, ok := Solve(conversationAt(boardOf(t, "X........"))); !ok || a != "<move>5</move>" {
		t.Errorf("reply to a corner: %q %v", a, ok)
	}
}

// The solver reads the last user message: earlier boards do not matter.
func TestSolveReadsTheLastUserMessage(t *testing.T) {
	t.Parallel()
	c := append(conversationAt(boardOf(t, "XX.OO....")),
		envs.Message{Role: envs.RoleAssistant, Content: "<move>9</move>"},
		envs.Message{Role: envs.RoleUser, Content: "You took cell 9.\n\n" + boardOf(t, "XO.XO...X").Render() + "\n\n" + replyLine})
	// O to move at XO.XO...X: O completes 2-5-8.
	if a, ok := Solve(c); !ok || a != "<move>8</move>" {
		t.Errorf("got %q %v, want the win at 8", a, ok)
	}
}

func TestWrongScoresBelowTheSolver(t *testing.T) {
	t.Parallel()
	const n = 300
	r := rng.New([32]byte{3})
	wrong := func(_ challenge.ID, c []envs.Message) string {
		a, ok := Wrong(c, r)
		if !ok {
			t.Fatalf("Wrong refused its own game: %v", c[len(c)-1])
		}
		return a
	}
	wins, _, losses := tally(t, n, wrong)
	t.Logf("Wrong over %d games: %d wins, %d losses", n, wins, losses)
	if losses < n*3/4 || wins > n/10 {
		t.Errorf("Wrong won %d and lost %d of %d games", wins, losses, n)
	}
}

func TestWrongThrowsAwayValue(t *testing.T) {
	t.Parallel()
	r := rng.New([32]byte{4})
	for _, tc := range []struct {
		key   string
		worse bool // whether some move changes the result
	}{
		{"X........", true},
		{"XX.OO....", true},
		{".X.......", true},
		// Every O move loses here; Wrong loses sooner than it must.
		{"XO..X....", false},
	} {
		b := boardOf(t, tc.key)
		scores, _ := moveScores(b)
		optimal, _ := split(b)
		top := scores[optimal[0]-1]
		for i := 0; i < 30; i++ {
			a, ok := Wrong(conversationAt(b), r)
			cell, reason := parseMove(a)
			if !ok || reason != "" || b[cell-1] != Empty {
				t.Fatalf("%s: Wrong gave %q (%s)", tc.key, a, reason)
			}
			if got := scores[cell-1]; got >= top || tc.worse && sign(got) >= sign(top) {
				t.Fatalf("%s: Wrong played %d scoring %d, best %d", tc.key, cell, got, top)
			}
		}
	}
	// Every move at an opening is a draw: Wrong plays any of them.
	if a, ok := Wrong(conversationAt(Board{}), r); !ok || a == "" {
		t.Errorf("opening: %q %v", a, ok)
	}
}

// The solver is the reference miner's player, so its play must not depend
// on the ID: two IDs whose games reach the same board get the same move.
func TestSolveIsAFunctionOfTheBoard(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, id := range envtest.IDs(Factory, 100) {
		ep, err := envtest.Play(Factory, id, envtest.FromText(Solve))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ep.Messages {
			if m.Role != envs.RoleAssistant {
				continue
			}
			b, _ := ParseBoard(ep.Messages[i-1].Content)
			if prev, ok := seen[b.Key()]; ok && prev != m.Content {
				t.Fatalf("board %s: %q and %q", b.Key(), prev, m.Content)
			}
			seen[b.Key()] = m.Content
		}
	}
}
