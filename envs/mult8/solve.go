package mult8

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

var promptPattern = regexp.MustCompile(`\AWhat is ([1-9][0-9]{7}) multiplied by ([1-9][0-9]{7})\? Give the exact product inside <answer></answer> tags\.\z`)

// factors finds the mult8 question in a conversation: the last user message
// that is exactly the prompt of spec/envs/mult8.md.
func factors(conversation []envs.Message) (a, b int64, ok bool) {
	for i := len(conversation) - 1; i >= 0; i-- {
		m := conversation[i]
		if m.Role != envs.RoleUser {
			continue
		}
		if g := promptPattern.FindStringSubmatch(m.Content); g != nil {
			a, _ = strconv.ParseInt(g[1], 10, 64)
			b, _ = strconv.ParseInt(g[2], 10, 64)
			return a, b, true
		}
	}
	return 0, 0, false
}

// Solve is the reference solver: it reads the two factors from the prompt
// and answers their product in the primary format. ok is false when the
// conversation holds no mult8 question.
func Solve(conversation []envs.Message) (answer string, ok bool) {
	a, b, ok := factors(conversation)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("<answer>%d</answer>", a*b), true
}

// Wrong answers a mult8 question with the kind of mistake long
// multiplication invites: one digit off by one, a dropped or doubled carry
// (the product off by a power of ten), or two adjacent digits swapped. The
// answer is well formed, positive, and never the product.
func Wrong(conversation []envs.Message, r *rng.Stream) (answer string, ok bool) {
	a, b, ok := factors(conversation)
	if !ok {
		return "", false
	}
	p := a * b
	var w int64
	switch r.Pick(3) {
	case 0:
		w = digitSlip(p, r)
	case 1:
		// The product has 15 or 16 digits, so p - 10^k stays positive.
		k := r.IntRange(1, int64(len(strconv.FormatInt(p, 10))-2))
		carry := pow10(int(k))
		if r.Chance(1, 2) {
			carry = -carry
		}
		w = p + carry
	default:
		w = transpose(p, r)
	}
	return fmt.Sprintf("<answer>%d</answer>", w), true
}

// digitSlip changes one digit of p by one, never making the leading digit 0.
func digitSlip(p int64, r *rng.Stream) int64 {
	s := []byte(strconv.FormatInt(p, 10))
	i := r.Pick(len(s))
	switch {
	case s[i] == '9':
		s[i]--
	case s[i] == '0' || i == 0 && s[i] == '1':
		s[i]++
	case r.Chance(1, 2):
		s[i]++
	default:
		s[i]--
	}
	w, _ := strconv.ParseInt(string(s), 10, 64)
	return w
}

// transpose swaps two adjacent, different digits of p; a product without
// such a pair gets a digit slip instead.
func transpose(p int64, r *rng.Stream) int64 {
	s := []byte(strconv.FormatInt(p, 10))
	var pairs []int
	for i := 0; i+1 < len(s); i++ {
		// Swapping a 0 into the lead would drop a digit: not a transposition.
		if s[i] != s[i+1] && (i > 0 || s[i+1] != '0') {
			pairs = append(pairs, i)
		}
	}
	if len(pairs) == 0 {
		return digitSlip(p, r)
	}
	i := pairs[r.Pick(len(pairs))]
	s[i], s[i+1] = s[i+1], s[i]
	w, _ := strconv.ParseInt(string(s), 10, 64)
	return w
}

func pow10(k int) int64 {
	v := int64(1)
	for range k {
		v *= 10
	}
	return v
}
