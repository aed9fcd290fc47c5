package sat

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/envs"
)

// literal is one parsed assignment item. num is the variable number as
// written, without leading zeros ("0" for zero), so that reasons can name an
// out-of-range number of any length.
type literal struct {
	num   string
	value bool
}

// variable returns the literal's variable number, or -1 when it is too long
// to be any variable (every valid one has at most two digits).
func (l literal) variable() int {
	if len(l.num) > 9 {
		return -1
	}
	v, _ := strconv.Atoi(l.num)
	return v
}

// parseError is a malformed assignment; its text is the scoring reason.
type parseError struct{ token string }

func (e parseError) Error() string {
	return `malformed answer: unexpected token "` + envs.Truncate(e.token, 32) + `"`
}

// extractAssignment finds the answer in a cleaned reply (spec/envs/sat.md,
// "Answer"): the content of the last <answer> tag pair, or, without one, the
// last line that parses to exactly n literals. found is false when there is
// no assignment at all.
func extractAssignment(text string, n int) (lits []literal, found bool, err error) {
	if content, ok := envs.LastTagged(text, "answer"); ok {
		lits, err := parseAssignment(content)
		return lits, err != nil || len(lits) > 0, err
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		lits, err := parseAssignment(lines[i])
		if err == nil && len(lits) == n {
			return lits, true, nil
		}
	}
	return nil, false, nil
}

var (
	assignOp  = regexp.MustCompile(` *([=:]) *`)
	separator = strings.NewReplacer(
		"\t", " ", "\n", " ", "\v", " ", "\f", " ", "\r", " ",
		",", " ", ";", " ", "[", " ", "]", " ", "{", " ", "}", " ", "(", " ", ")", " ",
	)
	markup = strings.NewReplacer("*", "", "`", "")
)

// parseAssignment reads one assignment text: markup and a leading label
// removed, then tokens, each a signed literal (-3, x3, ¬x3), an assignment
// (x3=true, 3:F) or, last only, the DIMACS terminator 0.
func parseAssignment(s string) ([]literal, error) {
	s = strings.Trim(markup.Replace(s), " \t\n\v\f\r")
	s = stripLabel(s)
	s = assignOp.ReplaceAllString(separator.Replace(s), "$1")
	tokens := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' })
	if len(tokens) > 0 && tokens[len(tokens)-1] == "0" {
		tokens = tokens[:len(tokens)-1]
	}
	lits := make([]literal, 0, len(tokens))
	for _, tok := range tokens {
		l, ok := parseToken(tok)
		if !ok {
			return nil, parseError{tok}
		}
		lits = append(lits, l)
	}
	return lits, nil
}

// stripLabel removes a prefix such as "Answer:" or "Final assignment:": an
// ASCII letter, then letters and spaces, then a colon.
func stripLabel(s string) string {
	if s == "" || !isLetter(s[0]) {
		return s
	}
	for i := 1; i < len(s); i++ {
		switch {
		case isLetter(s[i]) || s[i] == ' ':
		case s[i] == ':':
			return s[i+1:]
		default:
			return s
		}
	}
	return s
}

// asciiLower lowers A-Z only, so that no other script's case rules decide
// what counts as "true".
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

var negations = []string{"-", "~", "!", "¬", "−"}

func parseToken(tok string) (literal, bool) {
	if name, value, ok := strings.Cut(tok, "="); ok {
		return parseAssign(name, value)
	}
	if name, value, ok := strings.Cut(tok, ":"); ok {
		return parseAssign(name, value)
	}
	value := true
	if rest, ok := strings.CutPrefix(tok, "+"); ok {
		tok = rest
	} else {
		for _, neg := range negations {
			if rest, ok := strings.CutPrefix(tok, neg); ok {
				tok, value = rest, false
				break
			}
		}
	}
	num, ok := variableName(tok)
	return literal{num, value}, ok
}

func parseAssign(name, value string) (literal, bool) {
	num, ok := variableName(name)
	if !ok {
		return literal{}, false
	}
	switch asciiLower(value) {
	case "1", "t", "true":
		return literal{num, true}, true
	case "0", "f", "false":
		return literal{num, false}, true
	}
	return literal{}, false
}

// variableName accepts an optional x or X and one or more ASCII digits, and
// returns the digits without leading zeros.
func variableName(s string) (string, bool) {
	if len(s) > 0 && s[0]|0x20 == 'x' {
		s = s[1:]
	}
	if s == "" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		s = "0"
	}
	return s, true
}
