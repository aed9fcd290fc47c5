package mult8

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDigits bounds the digits an answer's integer may have, leading zeros
// included. A longer one scores 0 without being quoted in the reason.
const MaxDigits = 40

// integer is one integer read from an answer.
type integer struct {
	neg bool
	// digits is the value's decimal form without sign or leading zeros
	// ("0" for zero).
	digits string
	// written counts the digits as written, leading zeros included.
	written int
}

// String is the canonical decimal form used in reasons: no separators, no
// leading zeros, "-" only before a non-zero value.
func (n integer) String() string {
	if n.neg && n.digits != "0" {
		return "-" + n.digits
	}
	return n.digits
}

// groupSeparators may join groups of three digits: comma, underscore, space,
// thin space (U+2009), narrow no-break space (U+202F) and LaTeX's "\," and
// "{,}". No two start with the same byte, so at most one applies anywhere.
var groupSeparators = []string{",", "_", " ", "\u2009", "\u202F", `\,`, "{,}"}

// lastInteger returns the last integer in text by the rule of
// spec/envs/mult8.md, "Integers".
func lastInteger(text string) (last integer, found bool) {
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		// i starts a maximal run of ASCII digits: the scan only stops on a
		// non-digit or at the end of a run.
		start, end := i, digitRunEnd(text, i)
		sep := ""
		if end-start <= 3 {
			for _, s := range groupSeparators {
				if groupAt(text, end, s) {
					sep = s
					break
				}
			}
			for sep != "" && groupAt(text, end, sep) {
				end += len(sep) + 3
			}
		}
		i = end
		if glued(text, start, end) {
			continue
		}
		last, found = integer{neg: negative(text, start)}, true
		last.digits, last.written = digitsOf(text[start:end], sep)
	}
	return last, found
}

// groupAt reports whether text continues at i with sep and then a run of
// exactly three digits.
func groupAt(text string, i int, sep string) bool {
	if !strings.HasPrefix(text[i:], sep) {
		return false
	}
	j := i + len(sep)
	return digitRunEnd(text, j)-j == 3
}

// glued reports whether the candidate text[start:end] is part of something
// larger than an integer: a word ("x2", "1e9"), a decimal ("3.14"), or
// digits joined by a separator that does not form groups of three
// ("12,34", "1234_567").
func glued(text string, start, end int) bool {
	before, size := utf8.DecodeLastRuneInString(text[:start])
	if start > 0 && (isWordRune(before) || isGlue(before) && endsInDigit(text[:start-size])) {
		return true
	}
	after, size := utf8.DecodeRuneInString(text[end:])
	if end < len(text) && (isWordRune(after) || isGlue(after) && end+size < len(text) && isDigit(text[end+size])) {
		return true
	}
	return false
}

// negative reports a minus sign right before the digits that is not itself
// glued to a word or number ("-5" and "= -5" are negative, "3-5" and
// "x-5" are subtraction and a hyphen).
func negative(text string, start int) bool {
	sign, size := utf8.DecodeLastRuneInString(text[:start])
	if start == 0 || sign != '-' && sign != '\u2212' {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:start-size])
	return start == size || !isWordRune(prev)
}

// digitsOf strips the separators and leading zeros from a matched integer.
func digitsOf(s, sep string) (digits string, written int) {
	if sep != "" {
		s = strings.ReplaceAll(s, sep, "")
	}
	written = len(s)
	s = strings.TrimLeft(s, "0")
	if s == "" {
		s = "0"
	}
	return s, written
}

func digitRunEnd(text string, i int) int {
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	return i
}

func endsInDigit(s string) bool { return s != "" && isDigit(s[len(s)-1]) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordRune is a letter (Unicode category L) or a decimal digit of any
// script (Nd).
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isGlue lists the characters that join digits into something that is not
// an integer when they stand between digits without forming groups of three.
func isGlue(r rune) bool {
	switch r {
	case '.', ',', '_', '\u2009', '\u202F':
		return true
	}
	return false
}
