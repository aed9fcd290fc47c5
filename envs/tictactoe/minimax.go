package tictactoe

import "sync"

// Scores are minimax values from the mover's point of view that prefer a
// quick win and a slow loss: a move that completes a line with e cells
// still empty scores e+1, a move that fills the board without a line
// scores 0, and any other move scores minus the best score of the
// opponent's reply. Wins score 1 to 9, draws 0, losses -1 to -9.

// numBoards is 3^9: every assignment of marks to cells.
const numBoards = 19683

func (b Board) index() int {
	n := 0
	for i := 8; i >= 0; i-- {
		n = 3*n + int(b[i])
	}
	return n
}

// bestScores holds, for every playable board, the best score its mover can
// get. The game is small enough to solve once, completely.
var bestScores = sync.OnceValue(func() *[numBoards]int8 {
	var t [numBoards]int8
	var known [numBoards]bool
	var best func(b Board) int
	best = func(b Board) int {
		k := b.index()
		if known[k] {
			return int(t[k])
		}
		p, top := b.toMove(), -100
		for c := range b {
			if b[c] == Empty {
				top = max(top, moveScore(b, c, p, best))
			}
		}
		t[k], known[k] = int8(top), true
		return top
	}
	best(Board{})
	return &t
})

// moveScore scores p playing at index c of b, with best giving the best
// score of a playable board.
func moveScore(b Board, c int, p Mark, best func(Board) int) int {
	b[c] = p
	e := b.empties()
	if _, won := b.line(p); won {
		return e + 1
	}
	if e == 0 {
		return 0
	}
	return -best(b)
}

func lookupBest(b Board) int { return int(bestScores()[b.index()]) }

// moveScores returns the score of every empty cell of a playable board for
// the mover, and which cells are empty.
func moveScores(b Board) (scores [9]int, legal [9]bool) {
	p := b.toMove()
	for c := range b {
		if b[c] == Empty {
			scores[c], legal[c] = moveScore(b, c, p, lookupBest), true
		}
	}
	return scores, legal
}

// split returns the cells (numbered 1 to 9, increasing) whose score is the
// best, and the other empty cells.
func split(b Board) (optimal, others []int) {
	scores, legal := moveScores(b)
	top := -100
	for c := range b {
		if legal[c] {
			top = max(top, scores[c])
		}
	}
	for c := range b {
		switch {
		case !legal[c]:
		case scores[c] == top:
			optimal = append(optimal, c+1)
		default:
			others = append(others, c+1)
		}
	}
	return optimal, others
}
