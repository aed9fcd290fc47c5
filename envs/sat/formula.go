package sat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/rng"
)

// Generator ranges (spec/envs/sat.md). The clause ratio 4.2 sits at the
// satisfiability threshold of random 3-SAT, where instances are hardest;
// planting keeps every formula satisfiable.
const (
	K       = 3
	MinVars = 8
	MaxVars = 20
)

// Formula is a CNF formula over variables 1..N. A literal is v (variable v
// true) or -v (variable v false).
type Formula struct {
	N       int
	Clauses [][]int
}

// Generate builds the formula of a seed, in the order of draws the spec
// fixes: n, the hidden assignment, then each clause's variables, signs and
// repair.
func Generate(seed [32]byte) Formula {
	f, _ := generate(seed)
	return f
}

// generate also returns the planted assignment (index 0 unused), for tests.
func generate(seed [32]byte) (Formula, []bool) {
	s := rng.New(seed)
	n := int(s.IntRange(MinVars, MaxVars))
	m := n * 42 / 10
	hidden := make([]bool, n+1)
	for v := 1; v <= n; v++ {
		hidden[v] = s.Chance(1, 2)
	}
	pool := make([]int, n)
	clauses := make([][]int, m)
	literals := make([]int, m*K)
	for j := range clauses {
		// A partial Fisher-Yates from the front over a fresh 1..n gives k
		// distinct variables with exactly k draws.
		for i := range pool {
			pool[i] = i + 1
		}
		c := literals[j*K : (j+1)*K : (j+1)*K]
		for i := range c {
			r := i + s.Pick(n-i)
			pool[i], pool[r] = pool[r], pool[i]
			c[i] = pool[i]
		}
		for i := range c {
			if s.Chance(1, 2) {
				c[i] = -c[i]
			}
		}
		if !satisfiedBy(c, hidden) {
			i := s.Pick(K)
			c[i] = -c[i]
		}
		clauses[j] = c
	}
	return Formula{N: n, Clauses: clauses}, hidden
}

// satisfiedBy reports whether some literal of c is true under a
// (a[v] is variable v's value).
func satisfiedBy(c []int, a []bool) bool {
	for _, lit := range c {
		if (lit > 0) == a[abs(lit)] {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// DIMACS renders f as the "p cnf" header and one line per clause, each line
// ended by a newline.
func (f Formula) DIMACS() string {
	var b strings.Builder
	fmt.Fprintf(&b, "p cnf %d %d\n", f.N, len(f.Clauses))
	for _, c := range f.Clauses {
		b.WriteString(clauseText(c))
		b.WriteString(" 0\n")
	}
	return b.String()
}

// clauseText is a clause's literals separated by spaces, without the 0.
func clauseText(c []int) string {
	parts := make([]string, len(c))
	for i, lit := range c {
		parts[i] = strconv.Itoa(lit)
	}
	return strings.Join(parts, " ")
}

// Bounds of formulas ParseDIMACS accepts: generous beside the generator's,
// small enough that nothing read from a prompt can make a parser or solver
// allocate without bound.
const (
	maxParseVars    = 100
	maxParseClauses = 2000
)

var errNoHeader = errors.New("no \"p cnf <vars> <clauses>\" line")

// ParseDIMACS reads the first "p cnf N M" line of text and the M clause
// lines right after it. Every clause line is integers separated by blanks,
// ended by 0, with at least one literal, each within ±N and not 0.
func ParseDIMACS(text string) (Formula, error) {
	lines := strings.Split(text, "\n")
	start := -1
	var n, m int
	for i, line := range lines {
		fields := strings.Fields(line)
		if len(fields) != 4 || fields[0] != "p" || fields[1] != "cnf" {
			continue
		}
		var err1, err2 error
		n, err1 = parseCount(fields[2], maxParseVars)
		m, err2 = parseCount(fields[3], maxParseClauses)
		if err := errors.Join(err1, err2); err != nil {
			return Formula{}, fmt.Errorf("line %d: header %q: %w", i+1, line, err)
		}
		start = i + 1
		break
	}
	if start < 0 {
		return Formula{}, errNoHeader
	}
	if len(lines)-start < m {
		return Formula{}, fmt.Errorf("header promises %d clauses, only %d lines follow", m, len(lines)-start)
	}
	f := Formula{N: n, Clauses: make([][]int, m)}
	for j := range f.Clauses {
		c, err := parseClause(lines[start+j], n)
		if err != nil {
			return Formula{}, fmt.Errorf("clause %d (line %d): %w", j+1, start+j+1, err)
		}
		f.Clauses[j] = c
	}
	return f, nil
}

func parseCount(s string, limit int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > limit {
		return 0, fmt.Errorf("count %q is not an integer in [1, %d]", s, limit)
	}
	return v, nil
}

func parseClause(line string, n int) ([]int, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[len(fields)-1] != "0" {
		return nil, fmt.Errorf("%q is not literals ended by 0", line)
	}
	c := make([]int, len(fields)-1)
	for i, s := range fields[:len(fields)-1] {
		lit, err := strconv.Atoi(s)
		if err != nil || lit == 0 || lit < -n || lit > n {
			return nil, fmt.Errorf("literal %q is not a nonzero integer within ±%d", s, n)
		}
		c[i] = lit
	}
	return c, nil
}
