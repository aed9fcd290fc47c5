package tictactoe

import (
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/rng"
)

// tally plays n games with solver and counts wins, draws and losses.
func tally(t *testing.T, n int, solver envtest.Solver) (wins, draws, losses int) {
	t.Helper()
	for _, id := range envtest.IDs(Factory, n) {
		ep, err := envtest.Play(Factory, id, solver)
		if err != nil {
			t.Fatal(err)
		}
		switch ep.Reward {
		case rewardWin:
			wins++
		case rewardDraw:
			draws++
		default:
			losses++
		}
	}
	return wins, draws, losses
}

// randomPlayer plays a uniformly random empty cell, from a stream of its
// own per challenge.
func randomPlayer(id challenge.ID, conversation []envs.Message) string {
	b, ok := boardToPlay(conversation)
	if !ok {
		return ""
	}
	var open []int
	for c := range b {
		if b[c] == Empty {
			open = append(open, c+1)
		}
	}
	s := rng.New(rng.Derive(id.Seed, "test/random/"+b.Key()))
	return formatMove(open[s.Pick(len(open))])
}

func TestSolverNeverLosesAndWinsOften(t *testing.T) {
	const n = 500
	wins, draws, losses := tally(t, n, envtest.FromText(Solve))
	t.Logf("solver over %d games: %d wins, %d draws, %d losses", n, wins, draws, losses)
	if losses != 0 {
		t.Errorf("solver lost %d games", losses)
	}
	// Perfect play wins whenever the opponent's seeded mistakes allow it:
	// at 10-30% that is a large share, far from all.
	if wins < n/5 || wins > n*9/10 {
		t.Errorf("solver won %d of %d games, want between %d and %d", wins, n, n/5, n*9/10)
	}
}

func TestRandomPlayerLosesOften(t *testing.T) {
	const n = 500
	wins, draws, losses := tally(t, n, randomPlayer)
	t.Logf("random player over %d games: %d wins, %d draws, %d losses", n, wins, draws, losses)
	if losses < n/2 {
		t.Errorf("random player lost only %d of %d games", losses, n)
	}
}
