package tictactoe

import (
	"encoding/hex"
	"fmt"
)

// The texts below are normative (spec/envs/tictactoe.md): changing a byte
// is a new version.

const systemPrompt = `You are playing tic-tac-toe against an opponent on a 3x3 board. The cells are numbered 1 to 9, row by row:

 1 | 2 | 3
---+---+---
 4 | 5 | 6
---+---+---
 7 | 8 | 9

X moves first and the players take turns, each putting their mark in an empty cell. The first to get three marks in a row, column or diagonal wins; a full board without three in a row is a draw. In the boards shown to you, an empty cell shows its number.

On each turn, reply with your move as <move>N</move>, where N is the number of an empty cell; if your reply has several, the last one counts. A move to a taken cell or outside 1 to 9, or a reply without a move, loses the game at once.`

const replyLine = "Reply with your move as <move>N</move>."

// gameName is the first 8 hex digits of the seed. It makes every opening
// prompt distinct (there are only ten opening boards) and lets a reader
// tell games apart; the opponent does not depend on it.
func gameName(seed [32]byte) string { return hex.EncodeToString(seed[:4]) }

func firstMessage(seed [32]byte, model Mark, opening int, b Board) string {
	var head string
	if model == X {
		head = fmt.Sprintf("Game %s. You are X and move first.", gameName(seed))
	} else {
		head = fmt.Sprintf("Game %s. You are O. Your opponent is X and moved first, taking cell %d.", gameName(seed), opening)
	}
	return head + "\n\n" + b.Render() + "\n\n" + replyLine
}

func turnMessage(model Mark, yours, theirs int, b Board) string {
	return fmt.Sprintf("You took cell %d and your opponent took cell %d. You are %s.\n\n%s\n\n%s", yours, theirs, model, b.Render(), replyLine)
}
