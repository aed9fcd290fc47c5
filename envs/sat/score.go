package sat

import (
	"fmt"

	"github.com/affine-ledger/ledger/envs"
)

// ReasonNoAssignment is the reason when a reply holds no assignment at all.
const ReasonNoAssignment = "no assignment found"

type task struct{ f Formula }

// Score gives 1 for any assignment that satisfies every clause. Checks run
// in the spec's order: extraction, then each literal in order (range, then
// repetition), then missing variables, then clauses in order; the first
// failure is the reason.
func (t task) Score(answer string) (int, string) {
	lits, found, err := extractAssignment(envs.Clean(answer), t.f.N)
	if err != nil {
		return 0, err.Error()
	}
	if !found {
		return 0, ReasonNoAssignment
	}
	values, reason := t.f.assignment(lits)
	if reason != "" {
		return 0, reason
	}
	for j, c := range t.f.Clauses {
		if !satisfiedBy(c, values) {
			return 0, fmt.Sprintf("clause %d unsatisfied: %s", j+1, clauseText(c))
		}
	}
	return 1, envs.ReasonCorrect
}

// assignment turns literals into values indexed by variable, or a reason
// when they are not a complete assignment of 1..N.
func (f Formula) assignment(lits []literal) ([]bool, string) {
	values := make([]bool, f.N+1)
	seen := make([]bool, f.N+1)
	for _, l := range lits {
		v := l.variable()
		if v < 1 || v > f.N {
			return nil, fmt.Sprintf("variable %s out of range", l.num)
		}
		if seen[v] {
			return nil, fmt.Sprintf("variable %d assigned twice", v)
		}
		seen[v], values[v] = true, l.value
	}
	for v := 1; v <= f.N; v++ {
		if !seen[v] {
			return nil, fmt.Sprintf("variable %d missing", v)
		}
	}
	return values, ""
}
