package tictactoe

import "github.com/affine-ledger/ledger/rng"

// opponentMove is the built-in opponent's cell (1 to 9) at playable board
// b. It depends only on the seed, the mistake rate and b, never on how the
// game reached b, so that a board seen twice gets the same reply.
func opponentMove(seed [32]byte, mistakePercent int64, b Board) int {
	s := rng.New(rng.Derive(seed, "opponent/"+b.Key()))
	optimal, others := split(b)
	// Drawn even when there is no worse move, so that the number of draws
	// never depends on the position.
	if s.Chance(uint64(mistakePercent), 100) && len(others) > 0 {
		return others[s.Pick(len(others))]
	}
	return optimal[s.Pick(len(optimal))]
}
