package abd

import (
	"sort"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd/lang"
)

// answerList is a parsed list of integers. Values beyond the input limit
// are kept as ±(MaxValue+1) and the first of them, as written without sign
// noise or leading zeros, is in outOfRange, so that a reason can quote it
// whatever its length.
type answerList struct {
	values     []int64
	outOfRange string
}

// extract finds the answer list in cleaned text (spec/envs/abd.md,
// "Answer"): the last <answer> tag pair whose content is a list, or, when no
// tag pair holds one, the last bracketed list anywhere in the text.
func extract(text string) (answerList, bool) {
	if l, ok := lastTaggedList(text); ok {
		return l, true
	}
	for i := strings.LastIndexByte(text, '['); i >= 0; i = strings.LastIndexByte(text[:i], '[') {
		if l, _, ok := readBracketed(text, i); ok {
			return l, true
		}
	}
	return answerList{}, false
}

const (
	openTag  = "<answer>"
	closeTag = "</answer>"
)

// lastTaggedList pairs each </answer>, last first, with the last <answer>
// before it, as last_tagged of spec/envs/README.md does, and returns the
// first content that is a list. A content that holds an earlier </answer>
// cannot be one ('<' is never part of a list), which keeps the search
// linear in the length of the text.
func lastTaggedList(text string) (answerList, bool) {
	lower := asciiLower(text)
	opens, closes := indexAll(lower, openTag), indexAll(lower, closeTag)
	for k := len(closes) - 1; k >= 0; k-- {
		c := closes[k]
		// The last opening tag before c.
		j := sort.SearchInts(opens, c) - 1
		if j < 0 {
			break // no closing tag before this one has an opening tag either
		}
		o := opens[j]
		if k > 0 && closes[k-1] > o {
			continue
		}
		if l, ok := readContent(text[o+len(openTag) : c]); ok {
			return l, true
		}
	}
	return answerList{}, false
}

func indexAll(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(sub)
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// readContent reads a tag's content: with white space, '`' and '*' trimmed
// from both ends, it must be a bracketed list or a bare one ("3, 1, 4").
func readContent(s string) (answerList, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) || r == '`' || r == '*' })
	if s == "" {
		return answerList{}, false
	}
	if s[0] == '[' {
		l, end, ok := readBracketed(s, 0)
		return l, ok && end == len(s)
	}
	p := listParser{s: s}
	ok := p.items(false)
	return p.list, ok && p.i == len(s)
}

// readBracketed reads a list that starts with the '[' at s[i] and returns
// it with the index just after its ']'.
func readBracketed(s string, i int) (answerList, int, bool) {
	p := listParser{s: s, i: i + 1}
	p.space()
	if p.peek() == ']' {
		return p.list, p.i + 1, true
	}
	if !p.items(true) || p.peek() != ']' {
		return answerList{}, 0, false
	}
	return p.list, p.i + 1, true
}

type listParser struct {
	s    string
	i    int
	list answerList
}

func (p *listParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// space skips ASCII white space and says whether there was any.
func (p *listParser) space() bool {
	start := p.i
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}

// items reads integers separated by a comma (with optional white space
// around it) or by white space alone, with an optional trailing comma. It
// stops before the closing ']' when bracketed, at the end of s otherwise.
func (p *listParser) items(bracketed bool) bool {
	atEnd := func() bool { return bracketed && p.peek() == ']' || !bracketed && p.i == len(p.s) }
	for {
		if !p.integer() {
			return false
		}
		spaced := p.space()
		if p.peek() == ',' {
			p.i++
			p.space()
			if atEnd() {
				return true
			}
			continue
		}
		if atEnd() {
			return true
		}
		if !spaced {
			return false
		}
	}
}

const unicodeMinus = "\u2212"

// integer reads an optional sign ('-', '+' or U+2212) and ASCII digits.
func (p *listParser) integer() bool {
	neg := false
	switch {
	case strings.HasPrefix(p.s[p.i:], "-"):
		neg, p.i = true, p.i+1
	case strings.HasPrefix(p.s[p.i:], "+"):
		p.i++
	case strings.HasPrefix(p.s[p.i:], unicodeMinus):
		neg, p.i = true, p.i+len(unicodeMinus)
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == start {
		return false
	}
	digits := strings.TrimLeft(p.s[start:p.i], "0")
	if digits == "" {
		digits, neg = "0", false
	}
	limit := lang.Default.MaxValue
	v := limit + 1
	// Seven digits hold every value up to the limit, 10^6.
	if len(digits) <= 7 {
		v, _ = strconv.ParseInt(digits, 10, 64)
	}
	if v > limit {
		v = limit + 1
		if p.list.outOfRange == "" {
			text := digits
			if neg {
				text = "-" + digits
			}
			p.list.outOfRange = envs.Truncate(text, 24)
		}
	}
	if neg {
		v = -v
	}
	p.list.values = append(p.list.values, v)
	return true
}
