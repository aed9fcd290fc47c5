package envs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/affine-ledger/ledger/internal/textcut"
)

// MaxAnswerBytes is the largest action any environment reads. Larger answers
// score 0 with a reason before any parsing; the limit is part of the spec.
const MaxAnswerBytes = 64 << 10

// Reasons shared by every environment's scoring.
const (
	ReasonCorrect = "correct"
	ReasonEmpty   = "empty answer"
)

// CheckAnswer applies the checks every parser starts with and returns a
// non-empty reason when the answer must score 0 before parsing: empty (only
// white space) or larger than MaxAnswerBytes.
func CheckAnswer(action string) string {
	if len(action) > MaxAnswerBytes {
		return fmt.Sprintf("answer too large: %d bytes > %d", len(action), MaxAnswerBytes)
	}
	if strings.TrimSpace(action) == "" {
		return ReasonEmpty
	}
	return ""
}

var (
	// Spelled out rather than (?i), which folds Unicode (the Kelvin sign matches k):
	// the spec says ASCII case-insensitive.
	thinkBlock = regexp.MustCompile(`(?s)<[tT][hH][iI][nN][kK]>.*?</[tT][hH][iI][nN][kK]>`)
	fenceLine  = regexp.MustCompile("(?m)^[ \t]*```[A-Za-z0-9_+-]*[ \t]*$")
)

// Clean prepares free text for answer extraction: it replaces invalid UTF-8,
// removes <think>...</think> blocks (and everything after an unclosed
// <think>, which is reasoning cut short), and removes code-fence lines while
// keeping what they fenced.
func Clean(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = thinkBlock.ReplaceAllString(text, " ")
	if i := strings.Index(asciiLower(text), "<think>"); i >= 0 {
		text = text[:i]
	}
	// A reply that starts mid-thought (its opening tag eaten by a template)
	// carries a lone </think>: the answer is after it.
	if i := strings.LastIndex(asciiLower(text), "</think>"); i >= 0 {
		text = text[i+len("</think>"):]
	}
	return fenceLine.ReplaceAllString(text, "")
}

// LastTagged returns the content of the last <tag>...</tag> in text, and
// whether there was one. Tags match case-insensitively.
//
// The spec tries each closing tag from the last back until one has an
// opening tag before it. Only the last can: an earlier one has less text
// before it. Trying them all would scan the text once per closing tag, and
// an answer of nothing but closing tags would take quadratic time.
func LastTagged(text, tag string) (string, bool) {
	lower := asciiLower(text)
	open, closing := "<"+asciiLower(tag)+">", "</"+asciiLower(tag)+">"
	end := strings.LastIndex(lower, closing)
	if end < 0 {
		return "", false
	}
	start := strings.LastIndex(lower[:end], open)
	if start < 0 {
		return "", false
	}
	return text[start+len(open) : end], true
}

// asciiLower lower-cases A-Z only. Unlike strings.ToLower it never changes a
// string's length, so indexes found in its result are valid in the original.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// Truncate shortens s to at most n bytes on a rune boundary, marking the cut,
// for reasons that quote an answer.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Prefix(s, n) + "..."
}
