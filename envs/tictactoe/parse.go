package tictactoe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/affine-ledger/ledger/envs"
)

// The patterns run on an ASCII-lower-cased copy of the cleaned reply, so
// that tags and words match ASCII case-insensitively and nothing else
// folds (Go's (?i) would also fold the Kelvin sign and the long s). White
// space is ASCII: space, tab, LF, CR, FF.
var (
	// A tagged answer's content holds no '<', so tagged answers never
	// overlap and "the last one" is unambiguous.
	taggedMove = regexp.MustCompile(`<move>([^<]*)</move>|<answer>([^<]*)</answer>`)
	// Well-formed content: a decimal number, optionally after "cell",
	// optionally wrapped in markdown emphasis or code marks.
	tagContent = regexp.MustCompile("^[\t\n\f\r *`]*(?:cell[\t\n\f\r ]*)?([0-9]+)[\t\n\f\r *`.]*$")
	// Fallbacks, for replies without a well-formed tagged answer.
	bareNumber = regexp.MustCompile(`^[\t\n\f\r ]*([0-9]+)\.?[\t\n\f\r ]*$`)
	namedCell  = regexp.MustCompile(`\b(?:cell|square|position)[\t\n\f\r ]*(?:#[\t\n\f\r ]*)?([0-9]+)\b`)
)

// reasonNoMove is the reason when a reply names no cell at all.
const reasonNoMove = "no move found"

// parseMove reads the cell a reply names (spec/envs/tictactoe.md, "Reading
// a move"): the last well-formed tagged answer, else a reply that is only a
// number, else the last "cell N", "square N" or "position N". It returns the
// cell (1 to 9) or, when there is none in range, a reason.
func parseMove(action string) (cell int, reason string) {
	text := asciiLower(envs.Clean(action))
	digits, found := "", false
	for _, m := range taggedMove.FindAllStringSubmatch(text, -1) {
		if c := tagContent.FindStringSubmatch(m[1] + m[2]); c != nil {
			digits, found = c[1], true
		}
	}
	if !found {
		if m := bareNumber.FindStringSubmatch(text); m != nil {
			digits, found = m[1], true
		} else if all := namedCell.FindAllStringSubmatch(text, -1); all != nil {
			digits, found = all[len(all)-1][1], true
		}
	}
	if !found {
		return 0, reasonNoMove
	}
	// Compared as text, so that a number of any length is safe.
	n := strings.TrimLeft(digits, "0")
	if len(n) != 1 {
		if n == "" {
			n = "0"
		}
		return 0, fmt.Sprintf("illegal move: cell %s is out of range (1 to 9)", envs.Truncate(n, 20))
	}
	return int(n[0] - '0'), ""
}

// asciiLower maps A-Z to a-z and leaves every other byte alone, so that
// offsets and lengths are unchanged.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
