package sat

import (
	"reflect"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/envs/envtest"
)

func TestGenerateIsPlantedAndInRange(t *testing.T) {
	t.Parallel()
	sizes := map[int]bool{}
	for _, id := range envtest.IDs(Factory, 500) {
		f, hidden := generate(id.Seed)
		if f.N < MinVars || f.N > MaxVars || len(f.Clauses) != f.N*42/10 {
			t.Fatalf("%s: n=%d m=%d out of the spec's ranges", id, f.N, len(f.Clauses))
		}
		sizes[f.N] = true
		for j, c := range f.Clauses {
			if len(c) != K {
				t.Fatalf("%s: clause %d has %d literals", id, j+1, len(c))
			}
			seen := map[int]bool{}
			for _, lit := range c {
				if lit == 0 || abs(lit) > f.N || seen[abs(lit)] {
					t.Fatalf("%s: clause %d %v: bad or repeated variable", id, j+1, c)
				}
				seen[abs(lit)] = true
			}
			if !satisfiedBy(c, hidden) {
				t.Fatalf("%s: clause %d %v is not satisfied by the planted assignment", id, j+1, c)
			}
		}
		if !reflect.DeepEqual(Generate(id.Seed), f) {
			t.Fatalf("%s: two generations differ", id)
		}
	}
	if len(sizes) != MaxVars-MinVars+1 {
		t.Errorf("500 seeds gave only %d of the %d sizes", len(sizes), MaxVars-MinVars+1)
	}
}

// The repair keeps planted formulas satisfiable by turning one literal of
// each clause that contradicts the plant (1 in 8). Literals should then agree
// with the plant at 1/2 + (1/8)(1/3) = 13/24: a repair that never ran, or
// flipped more than one literal, moves that rate well outside the bounds.
func TestSignsAreBalanced(t *testing.T) {
	t.Parallel()
	pos, total := 0, 0
	for _, id := range envtest.IDs(Factory, 200) {
		f, hidden := generate(id.Seed)
		for _, c := range f.Clauses {
			for _, lit := range c {
				total++
				if (lit > 0) == hidden[abs(lit)] {
					pos++
				}
			}
		}
	}
	// About 35000 literals: a standard deviation near 0.003.
	if got := float64(pos) / float64(total); got < 0.53 || got > 0.555 {
		t.Errorf("literals agreeing with the plant: %.4f, want about 13/24", got)
	}
}

func TestParseDIMACSRejects(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"",
		"1 2 3 0",
		"p cnf 0 1\n1 0",
		"p cnf 3 0\n",
		"p cnf 101 1\n1 0",
		"p cnf 3 2001",
		"p cnf x 1\n1 0",
		"p cnf 3 2\n1 2 0",
		"p cnf 3 1\n1 2",
		"p cnf 3 1\n0",
		"p cnf 3 1\n1 4 0",
		"p cnf 3 1\n1 -4 0",
		"p cnf 3 1\n1 0 2 0",
		"p cnf 3 1\n1 a 0",
		"p cnf 3 1\n\n1 2 0",
	} {
		if f, err := ParseDIMACS(text); err == nil {
			t.Errorf("ParseDIMACS(%q) = %v, want an error", text, f)
		}
	}
}

func TestParseDIMACSReadsFirstHeader(t *testing.T) {
	t.Parallel()
	f, err := ParseDIMACS("intro\n  p  cnf 3 2 \n1 -2 0\n\t-3 2 1 0\np cnf 1 1\n1 0\n")
	if err != nil {
		t.Fatal(err)
	}
	want := Formula{N: 3, Clauses: [][]int{{1, -2}, {-3, 2, 1}}}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("got %v, want %v", f, want)
	}
}

// FuzzParseDIMACS: no panic, and whatever parses re-renders to DIMACS that
// parses to the same formula, within the parser's bounds.
func FuzzParseDIMACS(f *testing.F) {
	f.Add(userPrompt(Generate([32]byte{1})))
	f.Add("p cnf 3 2\n1 -2 0\n-3 2 1 0\n")
	f.Add("p cnf 3 1\n1 +2 -0 0")
	f.Add("p cnf 99999999999999999999 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		formula, err := ParseDIMACS(text)
		if err != nil {
			return
		}
		if formula.N < 1 || formula.N > maxParseVars || len(formula.Clauses) < 1 || len(formula.Clauses) > maxParseClauses {
			t.Fatalf("accepted out-of-bounds formula n=%d m=%d", formula.N, len(formula.Clauses))
		}
		for _, c := range formula.Clauses {
			for _, lit := range c {
				if lit == 0 || abs(lit) > formula.N {
					t.Fatalf("accepted literal %d with n=%d", lit, formula.N)
				}
			}
		}
		again, err := ParseDIMACS(formula.DIMACS())
		if err != nil || !reflect.DeepEqual(again, formula) {
			t.Fatalf("re-rendered formula does not parse back: %v\n%s", err, formula.DIMACS())
		}
		if !strings.HasPrefix(formula.DIMACS(), "p cnf ") {
			t.Fatal("rendering lost its header")
		}
	})
}
