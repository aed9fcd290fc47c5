package sat

import (
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

// bruteForce reports whether any of the 2^n assignments satisfies f.
func bruteForce(f Formula) bool {
	values := make([]bool, f.N+1)
	for bits := 0; bits < 1<<f.N; bits++ {
		for v := 1; v <= f.N; v++ {
			values[v] = bits&(1<<(v-1)) != 0
		}
		all := true
		for _, c := range f.Clauses {
			if !satisfiedBy(c, values) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestDPLLAgreesWithBruteForce uses unplanted random formulas, dense enough
// that many are unsatisfiable, with clauses of 1 to 3 literals that may
// repeat or negate a variable.
func TestDPLLAgreesWithBruteForce(t *testing.T) {
	t.Parallel()
	s := rng.New([32]byte{'d', 'p', 'l', 'l'})
	counts := map[bool]int{}
	for i := 0; i < 2000; i++ {
		n := int(s.IntRange(1, 9))
		f := Formula{N: n, Clauses: make([][]int, s.IntRange(1, int64(6*n)))}
		for j := range f.Clauses {
			c := make([]int, s.IntRange(1, 3))
			for l := range c {
				c[l] = int(s.IntRange(1, int64(n)))
				if s.Chance(1, 2) {
					c[l] = -c[l]
				}
			}
			f.Clauses[j] = c
		}
		values, ok := f.Solve()
		if want := bruteForce(f); ok != want {
			t.Fatalf("formula %v: DPLL says satisfiable=%v, brute force %v", f, ok, want)
		}
		counts[ok]++
		if !ok {
			continue
		}
		for j, c := range f.Clauses {
			if !satisfiedBy(c, values) {
				t.Fatalf("formula %v: DPLL's assignment %v leaves clause %d unsatisfied", f, values, j+1)
			}
		}
	}
	if counts[true] < 200 || counts[false] < 200 {
		t.Errorf("test mix too one-sided: %v", counts)
	}
}
