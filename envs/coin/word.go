package coin

import (
	"unicode"
	"unicode/utf8"
)

// sides scans text for the whole words "heads" and "tails" (ASCII letters
// in any case, spec/envs/coin.md, "Words") and reports which occur and the
// last one.
func sides(text string) (heads, tails bool, last string) {
	for i := 0; i+5 <= len(text); i++ {
		var side string
		switch {
		case equalFoldASCII(text[i:i+5], Heads):
			side = Heads
		case equalFoldASCII(text[i:i+5], Tails):
			side = Tails
		default:
			continue
		}
		if !wholeWord(text, i, i+5) {
			continue
		}
		heads, tails, last = heads || side == Heads, tails || side == Tails, side
		i += 4
	}
	return heads, tails, last
}

// wholeWord reports that text[start:end] touches no letter or digit.
func wholeWord(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	return (start == 0 || !isWordRune(before)) && (end == len(text) || !isWordRune(after))
}

// isWordRune is a letter (Unicode category L) or a decimal digit of any
// script (Nd).
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// equalFoldASCII compares s with a lower-case ASCII word, folding A-Z only,
// so that no other script's case rules turn a foreign word into a guess.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
