// Package textcut shortens text to a byte budget without splitting a
// UTF-8 sequence: for reasons, messages and labels that quote input of any
// length.
package textcut

import "unicode/utf8"

// Prefix returns the longest prefix of s of at most n bytes that ends on a
// rune boundary; s itself when it fits.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
