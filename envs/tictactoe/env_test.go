package tictactoe

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

func TestConformance(t *testing.T) {
	// Perfect play never loses, and wins only when the opponent errs.
	envtest.Conformance(t, Factory, envtest.Options{N: 200, Solver: envtest.FromText(Solve), SolvedReward: rewardDraw})
}

func TestVectors(t *testing.T) {
	// Eight challenges: the first six of the test IDs all give the model X,
	// and the vectors must also bind the opponent's opening.
	envtest.Vectors(t, Factory, envtest.FromText(Solve), 8, func(id challenge.ID, solved envs.Episode) []envtest.Labelled {
		first := envtest.Actions(solved.Messages)[0]
		modelX, _ := draws(id.Seed)
		taken := []string{first, first}
		if !modelX {
			taken = []string{fmt.Sprintf("<move>%d</move>", solved.Info["opponent_opening"])}
		}
		var prose []string
		for _, a := range envtest.Actions(solved.Messages) {
			cell, _ := parseMove(a)
			prose = append(prose, fmt.Sprintf("I'll take cell %d.", cell))
		}
		out := []envtest.Labelled{
			{Label: "wrong", Actions: wrongLine(t, id)},
			{Label: "prose fallback", Actions: prose},
			{Label: "illegal: taken", Actions: taken},
			{Label: "illegal: out of range", Actions: []string{"<move>10</move>"}},
			{Label: "no move", Actions: []string{"I'd rather not play the corner."}},
			{Label: "broken tag", Actions: []string{"<move>5</move"}},
			{Label: "move in think only", Actions: []string{"<think>The centre: <move>5</move></think>"}},
		}
		if line := losingLine(id, Board{}); line != nil {
			out = append(out, envtest.Labelled{Label: "losing line", Actions: line})
		}
		return out
	})
}

// wrongLine plays Wrong on every turn.
func wrongLine(t *testing.T, id challenge.ID) []string {
	t.Helper()
	r := rng.New(rng.Derive(id.Seed, "test/wrong"))
	ep, err := envtest.Play(Factory, id, func(_ challenge.ID, c []envs.Message) string {
		a, _ := Wrong(c, r)
		return a
	})
	if err != nil {
		t.Fatal(err)
	}
	return envtest.Actions(ep.Messages)
}

// losingLine searches the model's legal moves, lowest cell first, for a
// game the opponent of id wins; b is the board before the opponent's
// opening. It returns nil when every line avoids defeat.
func losingLine(id challenge.ID, b Board) []string {
	modelX, mistake := draws(id.Seed)
	model := X
	if !modelX {
		model = O
		b[opponentMove(id.Seed, mistake, b)-1] = X
	}
	var search func(b Board) []string
	search = func(b Board) []string {
		for c := range b {
			if b[c] != Empty {
				continue
			}
			next := b
			next[c] = model
			if _, won := next.line(model); won || next.empties() == 0 {
				continue
			}
			r := opponentMove(id.Seed, mistake, next)
			next[r-1] = model.other()
			move := formatMove(c + 1)
			if _, won := next.line(model.other()); won {
				return []string{move}
			}
			if next.empties() == 0 {
				continue
			}
			if rest := search(next); rest != nil {
				return append([]string{move}, rest...)
			}
		}
		return nil
	}
	return search(b)
}

// findID returns the first test ID whose model mark is m.
func findID(t *testing.T, m Mark) challenge.ID {
	t.Helper()
	for _, id := range envtest.IDs(Factory, 50) {
		if modelX, _ := draws(id.Seed); modelX == (m == X) {
			return id
		}
	}
	t.Fatalf("no ID with model %s", m)
	return challenge.ID{}
}

func TestOpeningMessages(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	for _, id := range envtest.IDs(Factory, 300) {
		obs, info, err := Factory.New().Reset(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(obs) != 2 || obs[0].Role != envs.RoleSystem || obs[0].Content != systemPrompt || obs[1].Role != envs.RoleUser {
			t.Fatalf("%s: opening %v", id, obs)
		}
		modelX, pct := draws(id.Seed)
		if info["mistake_percent"] != pct {
			t.Fatalf("%s: info %v", id, info)
		}
		user := obs[1].Content
		if !strings.HasPrefix(user, "Game "+fmt.Sprintf("%x", id.Seed[:4])+". ") || !strings.HasSuffix(user, "\n\nReply with your move as <move>N</move>.") {
			t.Fatalf("%s: user message %q", id, user)
		}
		b, err := ParseBoard(user)
		if err != nil {
			t.Fatal(err)
		}
		opening := info["opponent_opening"].(int64)
		if modelX {
			if info["model_mark"] != "X" || opening != 0 || b != (Board{}) || !strings.Contains(user, "You are X and move first.") {
				t.Fatalf("%s: model X but info %v, board %s", id, info, b.Key())
			}
		} else {
			var want Board
			want[opening-1] = X
			if info["model_mark"] != "O" || b != want || !strings.Contains(user, "taking cell "+strconv.FormatInt(opening, 10)+".") {
				t.Fatalf("%s: model O but info %v, board %s", id, info, b.Key())
			}
		}
		counts[info["model_mark"].(string)]++
	}
	if counts["X"] < 110 || counts["O"] < 110 {
		t.Errorf("model marks over 300 games: %v", counts)
	}
}

// Each turn message shows both moves and the board, and the opponent's
// reply is the specified function of the board alone.
func TestTurnsFollowTheSpec(t *testing.T) {
	t.Parallel()
	for _, id := range envtest.IDs(Factory, 100) {
		_, pct := draws(id.Seed)
		env := Factory.New()
		obs, _, _ := env.Reset(id)
		r := rng.New(rng.Derive(id.Seed, "test/turns"))
		for turn := 0; ; turn++ {
			b, _ := ParseBoard(obs[len(obs)-1].Content)
			mine := b.toMove()
			a, _ := Wrong(obs, r) // any legal move
			cell, _ := parseMove(a)
			out, err := env.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			b[cell-1] = mine
			if out.Done {
				if out.Observation != nil || out.Reason == "" || out.Info["reason"] != out.Reason {
					t.Fatalf("%s: final outcome %+v", id, out)
				}
				break
			}
			reply := opponentMove(id.Seed, pct, b)
			b[reply-1] = mine.other()
			want := fmt.Sprintf("You took cell %d and your opponent took cell %d. You are %s.\n\n%s\n\nReply with your move as <move>N</move>.", cell, reply, mine, b.Render())
			if out.Reward != 0 || len(out.Observation) != 1 || out.Observation[0].Content != want || out.Observation[0].Role != envs.RoleUser {
				t.Fatalf("%s turn %d: got %+v, want message %q", id, turn, out, want)
			}
			if out.Info["board"] != b.Key() || out.Info["opponent_move"] != int64(reply) || out.Reason != reasonContinues {
				t.Fatalf("%s turn %d: info %v", id, turn, out.Info)
			}
			obs = append(obs, envs.Message{Role: envs.RoleAssistant, Content: a}, out.Observation[0])
		}
	}
}

func TestEndings(t *testing.T) {
	t.Parallel()
	idX, idO := findID(t, X), findID(t, O)
	play := func(id challenge.ID, actions ...string) envs.Episode {
		ep, err := envs.Replay(Factory, id, actions)
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	if ep := play(idX, "<move>10</move>"); ep.Reward != -1 || ep.Reason != "illegal move: cell 10 is out of range (1 to 9)" || !ep.Done {
		t.Errorf("out of range: %d %q", ep.Reward, ep.Reason)
	}
	if ep := play(idX, "the middle one"); ep.Reward != -1 || ep.Reason != reasonNoMove {
		t.Errorf("no move: %d %q", ep.Reward, ep.Reason)
	}
	if ep := play(idX, "  "); ep.Reward != -1 || ep.Reason != envs.ReasonEmpty {
		t.Errorf("blank: %d %q", ep.Reward, ep.Reason)
	}
	_, info, _ := Factory.New().Reset(idO)
	opening := info["opponent_opening"].(int64)
	if ep := play(idO, fmt.Sprintf("cell %d", opening)); ep.Reward != -1 || ep.Reason != fmt.Sprintf("illegal move: cell %d is taken", opening) {
		t.Errorf("taken: %d %q", ep.Reward, ep.Reason)
	}
	if ep := play(idX, "<move>5</move>", "<move>5</move>"); ep.Reward != -1 || ep.Reason != "illegal move: cell 5 is taken" {
		t.Errorf("own cell: %d %q", ep.Reward, ep.Reason)
	}

	// Game results name the line; rewards are 0 until the last step.
	sawWin, sawLoss, sawDraw := false, false, false
	for _, id := range envtest.IDs(Factory, 60) {
		for _, line := range [][]string{solvedLine(t, id), losingLine(id, Board{})} {
			if line == nil {
				continue
			}
			ep := play(id, line...)
			for _, r := range ep.Rewards[:len(ep.Rewards)-1] {
				if r != 0 {
					t.Fatalf("%s: rewards %v", id, ep.Rewards)
				}
			}
			switch {
			case ep.Reward == 1 && strings.HasPrefix(ep.Reason, "win: you completed cells "):
				sawWin = true
			case ep.Reward == -1 && strings.HasPrefix(ep.Reason, "loss: your opponent took cell "):
				sawLoss = true
			case ep.Reward == 0 && strings.HasPrefix(ep.Reason, "draw: "):
				sawDraw = true
			default:
				t.Fatalf("%s: reward %d reason %q", id, ep.Reward, ep.Reason)
			}
		}
	}
	if !sawWin || !sawLoss || !sawDraw {
		t.Errorf("saw win %v, loss %v, draw %v", sawWin, sawLoss, sawDraw)
	}
}

func solvedLine(t *testing.T, id challenge.ID) []string {
	t.Helper()
	ep, err := envtest.Play(Factory, id, envtest.FromText(Solve))
	if err != nil {
		t.Fatal(err)
	}
	return envtest.Actions(ep.Messages)
}
