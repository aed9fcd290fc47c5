package sat

import (
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Solve is the reference solver: it reads the formula back from the prompt
// text alone, finds a satisfying assignment by DPLL and answers in the
// primary format. ok is false when the conversation is not a sat prompt.
func Solve(conversation []envs.Message) (string, bool) {
	f, ok := formulaOf(conversation)
	if !ok {
		return "", false
	}
	values, ok := f.Solve()
	if !ok {
		return "", false
	}
	return render(values), true
}

// Wrong answers with a well-formed assignment that leaves one clause, chosen
// by r, unsatisfied: a solution with that clause's literals all made false.
func Wrong(conversation []envs.Message, r *rng.Stream) (string, bool) {
	f, ok := formulaOf(conversation)
	if !ok {
		return "", false
	}
	values, ok := f.Solve()
	if !ok {
		return "", false
	}
	start := r.Pick(len(f.Clauses))
	for i := range f.Clauses {
		c := f.Clauses[(start+i)%len(f.Clauses)]
		if tautology(c) {
			continue
		}
		for _, lit := range c {
			values[abs(lit)] = lit < 0
		}
		return render(values), true
	}
	return "", false
}

// formulaOf finds the last user message that is a sat prompt and parses its
// formula. Formulas larger than the generator makes are not this env's.
func formulaOf(conversation []envs.Message) (Formula, bool) {
	for i := len(conversation) - 1; i >= 0; i-- {
		m := conversation[i]
		if m.Role != envs.RoleUser || !strings.HasPrefix(m.Content, promptIntro) {
			continue
		}
		f, err := ParseDIMACS(m.Content)
		if err != nil || f.N > MaxVars || len(f.Clauses) == 0 {
			return Formula{}, false
		}
		return f, true
	}
	return Formula{}, false
}

func tautology(c []int) bool {
	for i, a := range c {
		for _, b := range c[i+1:] {
			if a == -b {
				return true
			}
		}
	}
	return false
}

// render writes values (index 0 unused) in the primary answer format.
func render(values []bool) string {
	parts := make([]string, len(values)-1)
	for v := 1; v < len(values); v++ {
		if values[v] {
			parts[v-1] = strconv.Itoa(v)
		} else {
			parts[v-1] = strconv.Itoa(-v)
		}
	}
	return "<answer>" + strings.Join(parts, " ") + "</answer>"
}
