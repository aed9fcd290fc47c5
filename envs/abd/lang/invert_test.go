package lang

import (
	"errors"
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

func mustParse(t *testing.T, text string) Program {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The cases where taking the output itself as the input of a sort, drop or
// step would be wrong: the ops before it constrain the order or the values.
func TestInvertNeedsOrderAndValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		program string
		output  []int64
		want    []int64 // the input Invert must find
	}{
		// Only descending lists reach the last sort: its input must be
		// the output reversed.
		{"sort asc\nmap mul -1\nsort asc", []int64{-5, -2, -1}, []int64{1, 2, 5}},
		{"sort desc\nreverse\nsort desc", []int64{9, 4, 4, 1}, []int64{9, 4, 4, 1}},
		{"sort asc\nsort desc", []int64{3, 2, 1}, []int64{1, 2, 3}},
		// The prepended values must be multiples of 3 and keep the order.
		{"map mul 3\nsort asc\ndrop 2", []int64{6, 9}, []int64{2, 2, 2, 3}},
		{"map mul 2\nmap add 1\nsort desc\ndrop 1\nmap add 10", []int64{13, 11}, []int64{1, 1, 0}},
		{"filter even\nstep 3", []int64{4, 8}, []int64{4, 4, 4, 8}},
		{"map add 5\nfilter gt 0\ntake 2\nreverse", []int64{3, 9}, []int64{4, -2}},
		{"drop 3", nil, nil},
		{"step 2\nfilter odd", nil, nil},
	} {
		p := mustParse(t, tc.program)
		got, err := Default.Invert(p, tc.output)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Invert(%q, %v) = %v, %v; want %v", tc.program, tc.output, got, err, tc.want)
		}
	}
}

func TestInvertRefusesImpossibleOutputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		program string
		output  []int64
	}{
		{"map mul 3", []int64{3, 4}},
		{"sort asc", []int64{2, 1}},
		{"sort desc", []int64{1, 2}},
		{"filter even", []int64{2, 3}},
		{"filter gt 5", []int64{5}},
		{"take 2", []int64{1, 2, 3}},
		{"map mul 2\nmap add 1\nfilter even", []int64{4}},
		{"take 2\ndrop 1", []int64{1, 2}},
		{"drop 60\nstep 2", []int64{1, 2, 3}},
		{"step 64\nstep 64", []int64{1, 2}},
		{"reverse", make([]int64, 65)},
		{"reverse", []int64{1000001}},
		{"map add -1", []int64{1000000}},
		{"map mul 7", []int64{-1 << 62}},
	} {
		p := mustParse(t, tc.program)
		if got, err := Default.Invert(p, tc.output); !errors.Is(err, ErrNoInput) {
			t.Errorf("Invert(%q, %v) = %v, %v; want ErrNoInput", tc.program, tc.output, got, err)
		}
	}
}

// TestInvertIsComplete checks the claim of spec/envs/abd.md exhaustively on
// a small world: for random short programs over a small value range, every
// input of length up to 4 with values in [-2, 2] is run, and Invert must
// find an input for every output that appeared.
func TestInvertIsComplete(t *testing.T) {
	t.Parallel()
	s := rng.New(rng.Derive([32]byte{}, "abd/lang invert complete"))
	var inputs [][]int64
	var grow func(prefix []int64)
	grow = func(prefix []int64) {
		inputs = append(inputs, slices.Clone(prefix))
		if len(prefix) == 4 {
			return
		}
		for v := int64(-2); v <= 2; v++ {
			grow(append(prefix, v))
		}
	}
	grow(nil)
	programs := 300
	if testing.Short() {
		programs = 60
	}
	for range programs {
		p := randomProgram(s, 1+s.Pick(5), 3)
		seen := map[string]bool{}
		for _, in := range inputs {
			out, err := Default.Run(p, in)
			if err != nil {
				t.Fatalf("%s on %v: %v", p, in, err)
			}
			key := FormatList(out)
			if seen[key] {
				continue
			}
			seen[key] = true
			found, err := Default.Invert(p, out)
			if err != nil {
				t.Fatalf("program\n%s\noutputs %v on %v, but Invert fails: %v", p, out, in, err)
			}
			if again, _ := Default.Run(p, found); !slices.Equal(again, out) {
				t.Fatalf("Invert's input %v gives %v, want %v", found, again, out)
			}
		}
	}
}

// randomProgram draws n ops of every kind with small arguments.
func randomProgram(s *rng.Stream, n int, maxArg int64) Program {
	p := make(Program, n)
	for i := range p {
		o := Op{Kind: Kind(1 + s.Pick(int(kindEnd)-1))}
		switch kinds[o.Kind].arg {
		case valueArg:
			o.Arg = s.IntRange(-maxArg, maxArg)
			if o.Kind == MapMul && o.Arg == 0 {
				o.Arg = -1
			}
		case countArg:
			o.Arg = s.IntRange(1, maxArg)
		}
		p[i] = o
	}
	return p
}

func TestInvertRandomPrograms(t *testing.T) {
	t.Parallel()
	s := rng.New(rng.Derive([32]byte{}, "abd/lang invert random"))
	for range 20000 {
		p := randomProgram(s, 1+s.Pick(8), 6)
		in := make([]int64, s.Pick(20))
		for i := range in {
			in[i] = s.IntRange(-50, 50)
		}
		out, err := Default.Run(p, in)
		if err != nil {
			t.Fatalf("%s on %v: %v", p, in, err)
		}
		if _, err := Default.Invert(p, out); err != nil {
			t.Fatalf("program\n%s\noutputs %v on %v, but Invert fails: %v", p, out, in, err)
		}
	}
}
