package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxProgramBytes bounds the text Parse reads, so that a hostile text costs
// no more than a long program would.
const MaxProgramBytes = 4096

// Parse reads a program's text form (spec/envs/abd.md, "Program text"): one
// op per line; lines are split on "\n", spaces, tabs and carriage returns
// around and between words are ignored, and blank lines are skipped. Words
// are lower case and numbers are canonical decimal ("0", "7", "-12"; no "+",
// no leading zeros), so each program has one text up to white space.
func Parse(text string) (Program, error) {
	if len(text) > MaxProgramBytes {
		return nil, fmt.Errorf("%w: text of %d bytes > %d", ErrProgram, len(text), MaxProgramBytes)
	}
	var p Program
	for n, line := range strings.Split(text, "\n") {
		words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' })
		if len(words) == 0 {
			continue
		}
		if len(p) == MaxOps {
			return nil, fmt.Errorf("%w: more than %d ops", ErrProgram, MaxOps)
		}
		o, err := parseOp(words)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrProgram, n+1, err)
		}
		p = append(p, o)
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("%w: no ops", ErrProgram)
	}
	return p, nil
}

func parseOp(words []string) (Op, error) {
	for k := MapAdd; k < kindEnd; k++ {
		name := strings.Fields(kinds[k].name)
		if len(words) < len(name) || !equalWords(words[:len(name)], name) {
			continue
		}
		args := words[len(name):]
		o := Op{Kind: k}
		switch {
		case kinds[k].arg == noArg && len(args) == 0:
			return o, nil
		case kinds[k].arg == noArg:
			return o, fmt.Errorf("%s takes no argument, got %q", kinds[k].name, clip(strings.Join(args, " ")))
		case len(args) != 1:
			return o, fmt.Errorf("%s takes one integer argument, got %d words", kinds[k].name, len(args))
		}
		v, err := parseInt(args[0])
		if err != nil {
			return o, fmt.Errorf("%s: %v", kinds[k].name, err)
		}
		o.Arg = v
		return o, o.Check()
	}
	return Op{}, fmt.Errorf("unknown op %q", clip(strings.Join(words, " ")))
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// parseInt reads a canonical decimal integer of at most 7 digits (every
// valid argument has at most 7).
func parseInt(s string) (int64, error) {
	digits := strings.TrimPrefix(s, "-")
	ok := digits != "" && len(digits) <= 7 && (digits == "0" && s == "0" || digits[0] != '0')
	for i := 0; ok && i < len(digits); i++ {
		ok = digits[i] >= '0' && digits[i] <= '9'
	}
	if !ok {
		return 0, fmt.Errorf("%q is not a canonical integer of at most 7 digits", clip(s))
	}
	return strconv.ParseInt(s, 10, 64)
}

// clip shortens quoted input in errors.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
