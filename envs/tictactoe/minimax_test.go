package tictactoe

import (
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

func TestKnownPositions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key     string
		best    int
		optimal []int
	}{
		// Every opening move draws with best play.
		{".........", 0, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		// Against a corner, only the centre holds.
		{"X........", 0, []int{5}},
		// Against an edge: the centre, the adjacent corners, the far edge.
		{".X.......", 0, []int{1, 3, 5, 8}},
		// Against the centre, only corners hold.
		{"....X....", 0, []int{1, 3, 7, 9}},
		// X to move wins at once at 3 (4 cells left: score 5).
		{"XX.OO....", 5, []int{3}},
		// O to move must block at 3, and the game is then drawn with best play.
		{"XX..O....", 0, []int{3}},
		// X holds opposite corners around O's centre: a corner lets X fork, so O
		// must take an edge.
		{"X...O...X", 0, []int{2, 4, 6, 8}},
	} {
		b := boardOf(t, tc.key)
		if got := lookupBest(b); got != tc.best {
			t.Errorf("%s: best %d, want %d", tc.key, got, tc.best)
		}
		optimal, others := split(b)
		if !reflect.DeepEqual(optimal, tc.optimal) {
			t.Errorf("%s: optimal %v, want %v", tc.key, optimal, tc.optimal)
		}
		if len(optimal)+len(others) != b.empties() {
			t.Errorf("%s: %d optimal + %d others != %d empty cells", tc.key, len(optimal), len(others), b.empties())
		}
	}
}

// Scores prefer a slow loss: after X1 O2 X5, O must block at 9 and loses
// later to a fork; any other move loses at once.
func TestScoresPreferSlowLosses(t *testing.T) {
	t.Parallel()
	b := boardOf(t, "XO..X....")
	scores, legal := moveScores(b)
	for c := range b {
		want := -5 // X completes 1-5-9 with 4 cells left
		if c == 8 {
			want = -3 // X forks at 7 and wins with 2 cells left
		}
		if legal[c] && scores[c] != want {
			t.Errorf("cell %d scores %d, want %d", c+1, scores[c], want)
		}
	}
	if optimal, _ := split(b); !reflect.DeepEqual(optimal, []int{9}) {
		t.Errorf("optimal %v, want [9]", optimal)
	}
	// Two threats cannot both be blocked: every move loses at once, so all
	// are equally good.
	b = boardOf(t, "XX.XO...O")
	if optimal, others := split(b); !reflect.DeepEqual(optimal, []int{3, 6, 7, 8}) || others != nil {
		t.Errorf("fork: optimal %v others %v", optimal, others)
	}
}

func TestOpponentWithoutMistakesPlaysOptimally(t *testing.T) {
	t.Parallel()
	b := boardOf(t, "XX.OO....") // X to move, wins at 3
	for i := 0; i < 200; i++ {
		seed := [32]byte{byte(i), 7}
		if c := opponentMove(seed, 0, b); c != 3 {
			t.Fatalf("seed %d: played %d, want the win at 3", i, c)
		}
		if c := opponentMove(seed, 100, b); c == 3 {
			t.Fatalf("seed %d: always-mistaken opponent played the win", i)
		}
		// With nothing worse to play, even a mistake is an optimal move.
		if c := opponentMove(seed, 100, Board{}); c < 1 || c > 9 {
			t.Fatalf("opening %d", c)
		}
	}
}

// The replay stream is fixed by the spec: the draws at one board, by hand.
func TestOpponentDrawsAsSpecified(t *testing.T) {
	t.Parallel()
	b := boardOf(t, "X........")
	for i := 0; i < 50; i++ {
		seed := [32]byte{byte(i)}
		s := rng.New(rng.Derive(seed, "opponent/X........"))
		want := 5
		if s.Chance(25, 100) {
			want = []int{2, 3, 4, 6, 7, 8, 9}[s.Pick(7)]
		} else {
			s.Pick(1)
		}
		if got := opponentMove(seed, 25, b); got != want {
			t.Fatalf("seed %d: %d, want %d", i, got, want)
		}
	}
}

func TestOpponentMistakeRate(t *testing.T) {
	t.Parallel()
	// Against a corner opening every move but the centre is a mistake.
	b := boardOf(t, "X........")
	const n = 4000
	mistakes, sumPercent := 0, int64(0)
	for i := 0; i < n; i++ {
		seed := rng.Derive([32]byte{1}, string(rune(i)))
		_, pct := draws(seed)
		if pct < MinMistakePercent || pct > MaxMistakePercent {
			t.Fatalf("mistake rate %d out of range", pct)
		}
		sumPercent += pct
		if opponentMove(seed, pct, b) != 5 {
			mistakes++
		}
	}
	// Expected n * mean(pct) / 100, sd about 25: allow 5 sd.
	want := int(sumPercent / 100)
	if mistakes < want-125 || mistakes > want+125 {
		t.Errorf("%d mistakes in %d games, want about %d", mistakes, n, want)
	}
}
