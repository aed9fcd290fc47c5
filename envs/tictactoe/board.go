package tictactoe

import (
	"errors"
	"fmt"
	"strings"
)

// Mark is what a cell holds.
type Mark byte

// The marks. X always moves first.
const (
	Empty Mark = iota
	X
	O
)

func (m Mark) String() string {
	switch m {
	case X:
		return "X"
	case O:
		return "O"
	}
	return "."
}

func (m Mark) other() Mark {
	if m == X {
		return O
	}
	return X
}

// Board holds cells 1 to 9, row by row, at indexes 0 to 8.
type Board [9]Mark

// lines are the eight ways to win, in the order the spec cites them.
var lines = [8][3]int{
	{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, // rows
	{0, 3, 6}, {1, 4, 7}, {2, 5, 8}, // columns
	{0, 4, 8}, {2, 4, 6}, // diagonals
}

// Key is the canonical board string: nine characters X, O or '.', row by
// row. It names the opponent's random stream, so it is part of the spec.
func (b Board) Key() string {
	var s [9]byte
	for i, m := range b {
		s[i] = m.String()[0]
	}
	return string(s[:])
}

// line returns the first completed line of m in spec order, as cell
// numbers, and whether there is one.
func (b Board) line(m Mark) ([3]int, bool) {
	for _, l := range lines {
		if b[l[0]] == m && b[l[1]] == m && b[l[2]] == m {
			return [3]int{l[0] + 1, l[1] + 1, l[2] + 1}, true
		}
	}
	return [3]int{}, false
}

func (b Board) empties() int {
	n := 0
	for _, m := range b {
		if m == Empty {
			n++
		}
	}
	return n
}

// toMove is the mark whose turn it is: X when the counts are equal.
func (b Board) toMove() Mark {
	x, o := 0, 0
	for _, m := range b {
		switch m {
		case X:
			x++
		case O:
			o++
		}
	}
	if x == o {
		return X
	}
	return O
}

// errNotPlayable is wrapped by checkPlayable's errors.
var errNotPlayable = errors.New("board is not a position to move in")

// checkPlayable accepts exactly the positions a game can reach with a move
// still to make: X has as many marks as O or one more, nobody has a line,
// and a cell is empty.
func (b Board) checkPlayable() error {
	x, o := 0, 0
	for _, m := range b {
		switch m {
		case X:
			x++
		case O:
			o++
		}
	}
	if x != o && x != o+1 {
		return fmt.Errorf("%w: %d X and %d O", errNotPlayable, x, o)
	}
	for _, m := range []Mark{X, O} {
		if l, ok := b.line(m); ok {
			return fmt.Errorf("%w: %s has cells %d-%d-%d", errNotPlayable, m, l[0], l[1], l[2])
		}
	}
	if x+o == 9 {
		return fmt.Errorf("%w: the board is full", errNotPlayable)
	}
	return nil
}

const rowSeparator = "---+---+---"

// Render draws the board as five lines without a final newline: rows
// " a | b | c" where a cell shows X, O or, when empty, its number, and
// separators "---+---+---".
func (b Board) Render() string {
	var sb strings.Builder
	for r := 0; r < 3; r++ {
		if r > 0 {
			sb.WriteString("\n" + rowSeparator + "\n")
		}
		for c := 0; c < 3; c++ {
			if c > 0 {
				sb.WriteString(" |")
			}
			i := 3*r + c
			sb.WriteByte(' ')
			if b[i] == Empty {
				sb.WriteByte(byte('1' + i))
			} else {
				sb.WriteString(b[i].String())
			}
		}
	}
	return sb.String()
}

// errNoBoard is returned by ParseBoard when text holds no rendering.
var errNoBoard = errors.New("no board rendering found")

// ParseBoard reads back the last rendering in text: five consecutive lines
// (split at "\n") exactly as Render writes them. It checks the form only,
// not whether the position is playable.
func ParseBoard(text string) (Board, error) {
	ls := strings.Split(text, "\n")
	for i := len(ls) - 5; i >= 0; i-- {
		if b, ok := parseBlock(ls[i : i+5]); ok {
			return b, nil
		}
	}
	return Board{}, errNoBoard
}

func parseBlock(ls []string) (Board, bool) {
	var b Board
	if ls[1] != rowSeparator || ls[3] != rowSeparator {
		return b, false
	}
	for r := 0; r < 3; r++ {
		row := ls[2*r]
		// " a | b | c": cells at bytes 1, 5 and 9.
		if len(row) != 10 || row[0] != ' ' || row[2:5] != " | " || row[6:9] != " | " {
			return b, false
		}
		for c := 0; c < 3; c++ {
			i := 3*r + c
			switch ch := row[1+4*c]; {
			case ch == 'X':
				b[i] = X
			case ch == 'O':
				b[i] = O
			case ch == byte('1'+i):
				b[i] = Empty
			default:
				return b, false
			}
		}
	}
	return b, true
}
