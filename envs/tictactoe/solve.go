package tictactoe

import (
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Solve is the reference player. It reads the board from the last user
// message only, as a model would, and plays a move of the best minimax
// score, so it never loses; among those it picks the move with the highest
// expected result against the documented opponent at an assumed mistake
// rate of 20% (the middle of the range), which wins the games that the
// opponent's mistakes allow. ok is false when the conversation is not a
// tictactoe game waiting for a move.
func Solve(conversation []envs.Message) (answer string, ok bool) {
	b, ok := boardToPlay(conversation)
	if !ok {
		return "", false
	}
	return formatMove(bestMove(b)), true
}

// Wrong returns a legal move that throws away value where one exists: a
// cell whose minimax result (win, draw or loss) is worse than the best;
// failing that, a slower win; failing that (every move is as good), any
// empty cell. Drawn uniformly from those cells in increasing order.
func Wrong(conversation []envs.Message, r *rng.Stream) (answer string, ok bool) {
	b, ok := boardToPlay(conversation)
	if !ok {
		return "", false
	}
	scores, legal := moveScores(b)
	top := -100
	for c := range b {
		if legal[c] {
			top = max(top, scores[c])
		}
	}
	var worse, slower, open []int
	for c := range b {
		if !legal[c] {
			continue
		}
		open = append(open, c+1)
		switch {
		case sign(scores[c]) < sign(top):
			worse = append(worse, c+1)
		case scores[c] < top:
			slower = append(slower, c+1)
		}
	}
	for _, cells := range [][]int{worse, slower, open} {
		if len(cells) > 0 {
			return formatMove(cells[r.Pick(len(cells))]), true
		}
	}
	return "", false
}

func formatMove(cell int) string { return "<move>" + strconv.Itoa(cell) + "</move>" }

// boardToPlay finds the position a tictactoe conversation asks a move in:
// the game must be named somewhere, and the last user message must show a
// playable board and ask for a <move>.
func boardToPlay(conversation []envs.Message) (Board, bool) {
	named, last := false, -1
	for i, m := range conversation {
		named = named || strings.Contains(m.Content, "tic-tac-toe")
		if m.Role == envs.RoleUser {
			last = i
		}
	}
	if !named || last < 0 || !strings.Contains(conversation[last].Content, "<move>N</move>") {
		return Board{}, false
	}
	b, err := ParseBoard(conversation[last].Content)
	if err != nil || b.checkPlayable() != nil {
		return Board{}, false
	}
	return b, true
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// The solver's expected results are exact rationals, so that its choice
// (and with it the vectors' "correct" lines) is the same on every machine.
var (
	assumedMistake = big.NewRat(1, 5)
	expectedMu     sync.Mutex
	expected       = map[int]*big.Rat{}
)

// bestMove is the solver's cell at playable board b.
func bestMove(b Board) int {
	expectedMu.Lock()
	defer expectedMu.Unlock()
	move, _ := solveExpected(b)
	return move
}

// solveExpected returns the solver's move at b and its expected result for
// the mover (+1 win, 0 draw, -1 loss) when both sides keep to their
// policies. expectedMu must be held.
func solveExpected(b Board) (int, *big.Rat) {
	optimal, _ := split(b)
	move, value := 0, (*big.Rat)(nil)
	for _, c := range optimal {
		v := afterMove(b, c)
		if value == nil || v.Cmp(value) > 0 {
			move, value = c, v
		}
	}
	return move, value
}

// valueOf memoizes the expected result of a playable board for its mover.
func valueOf(b Board) *big.Rat {
	k := b.index()
	if v, ok := expected[k]; ok {
		return v
	}
	_, v := solveExpected(b)
	expected[k] = v
	return v
}

// afterMove is the mover's expected result of playing cell c at b, with the
// opponent erring at the assumed rate.
func afterMove(b Board, c int) *big.Rat {
	p := b.toMove()
	b[c-1] = p
	if _, won := b.line(p); won {
		return big.NewRat(1, 1)
	}
	if b.empties() == 0 {
		return new(big.Rat)
	}
	optimal, others := split(b)
	mean := func(cells []int) *big.Rat {
		sum := new(big.Rat)
		for _, r := range cells {
			sum.Add(sum, resultFor(p, b, r))
		}
		return sum.Quo(sum, big.NewRat(int64(len(cells)), 1))
	}
	if len(others) == 0 {
		return mean(optimal)
	}
	// (1-m) * mean(optimal) + m * mean(others)
	keep := new(big.Rat).Sub(big.NewRat(1, 1), assumedMistake)
	v := new(big.Rat).Mul(keep, mean(optimal))
	return v.Add(v, new(big.Rat).Mul(assumedMistake, mean(others)))
}

// resultFor is p's expected result after the opponent replies r at b.
func resultFor(p Mark, b Board, r int) *big.Rat {
	b[r-1] = p.other()
	if _, won := b.line(p.other()); won {
		return big.NewRat(-1, 1)
	}
	if b.empties() == 0 {
		return new(big.Rat)
	}
	return valueOf(b)
}
