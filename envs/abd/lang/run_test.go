package lang

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRunOps(t *testing.T) {
	t.Parallel()
	in := []int64{5, -3, 0, 8, -3, 7, 2}
	for _, tc := range []struct {
		op   string
		want []int64
	}{
		{"map add 4", []int64{9, 1, 4, 12, 1, 11, 6}},
		{"map add -5", []int64{0, -8, -5, 3, -8, 2, -3}},
		{"map mul -2", []int64{-10, 6, 0, -16, 6, -14, -4}},
		{"reverse", []int64{2, 7, -3, 8, 0, -3, 5}},
		{"sort asc", []int64{-3, -3, 0, 2, 5, 7, 8}},
		{"sort desc", []int64{8, 7, 5, 2, 0, -3, -3}},
		// 0 is even and negative odd numbers are odd.
		{"filter even", []int64{0, 8, 2}},
		{"filter odd", []int64{5, -3, -3, 7}},
		{"filter gt 2", []int64{5, 8, 7}},
		{"filter lt 0", []int64{-3, -3}},
		{"filter gt 100", []int64{}},
		{"take 3", []int64{5, -3, 0}},
		{"take 64", in},
		{"drop 5", []int64{7, 2}},
		{"drop 7", []int64{}},
		{"step 1", in},
		{"step 2", []int64{5, 0, -3, 2}},
		{"step 3", []int64{5, 8, 2}},
		{"step 7", []int64{5}},
	} {
		p, err := Parse(tc.op)
		if err != nil {
			t.Fatal(err)
		}
		orig := slices.Clone(in)
		got, err := Default.Run(p, in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s on %v = %v, %v; want %v", tc.op, in, got, err, tc.want)
		}
		if !slices.Equal(in, orig) {
			t.Fatalf("%s modified its input: %v", tc.op, in)
		}
	}
}

func TestRunPipeline(t *testing.T) {
	t.Parallel()
	p, err := Parse("map mul -3\nfilter gt -20\nsort desc\ndrop 2\nmap add 7")
	if err != nil {
		t.Fatal(err)
	}
	// [1 3 5 9 -2] -> [-3 -9 -15 -27 6] -> [-3 -9 -15 6] -> [6 -3 -9 -15]
	// -> [-9 -15] -> [-2 -8]
	got, err := Default.Run(p, []int64{1, 3, 5, 9, -2})
	if err != nil || !slices.Equal(got, []int64{-2, -8}) {
		t.Fatalf("got %v, %v; want [-2 -8]", got, err)
	}
}

func TestRunLimits(t *testing.T) {
	t.Parallel()
	mul := Program{{MapMul, 3}}
	for _, tc := range []struct {
		name   string
		lim    Limits
		p      Program
		input  []int64
		target error
		text   string
	}{
		{"input too long", Default, mul, make([]int64, 65), ErrInputLength, "input too long: 65 values > 64"},
		{"input value", Default, mul, []int64{1, -1000001}, ErrInputValue, "element 2 is -1000001, not in [-1000000, 1000000]"},
		{"overflow", Default, Program{{Kind: Reverse}, {MapMul, 3}}, []int64{1, 400000}, ErrOverflow, "op 2 (map mul 3): value out of range: 1200000 not in [-1000000, 1000000]"},
		{"overflow by add", Default, Program{{MapAdd, -1}}, []int64{-1000000}, ErrOverflow, "-1000001 not in"},
		{"steps", Limits{MaxLen: 64, MaxValue: 100, MaxSteps: 10}, Program{{Kind: Reverse}, {Kind: Reverse}}, make([]int64, 6), ErrSteps, "op 2 (reverse): step limit exceeded (10)"},
		{"empty lists cost a step", Limits{MaxLen: 64, MaxValue: 100, MaxSteps: 2}, Program{{Kind: Reverse}, {Kind: Reverse}, {Kind: Reverse}}, nil, ErrSteps, "op 3"},
		{"invalid program", Default, Program{{MapMul, 0}}, nil, ErrProgram, "op 1: map mul: constant must not be 0"},
		{"no ops", Default, Program{}, nil, ErrProgram, "no ops"},
		{"too many ops", Default, slicesRepeat(Op{Kind: Reverse}, MaxOps+1), nil, ErrProgram, "33 ops > 32"},
		{"unknown kind", Default, Program{{Kind: kindEnd}}, nil, ErrProgram, "unknown op kind 13"},
	} {
		_, err := tc.lim.Run(tc.p, tc.input)
		if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %v, want %v containing %q", tc.name, err, tc.target, tc.text)
		}
	}
	// The default step budget covers the longest program on the longest
	// input: valid runs never hit it.
	long := slicesRepeat(Op{Kind: SortDesc}, MaxOps)
	if _, err := Default.Run(long, make([]int64, Default.MaxLen)); err != nil {
		t.Fatalf("longest valid run: %v", err)
	}
}

// opFromBytes decodes 5 bytes into an op of any kind (valid or not) with an
// argument that is often at the edge of its range.
func opFromBytes(b []byte) Op {
	edges := []int64{0, 1, -1, 2, -2, 3, MaxCount, MaxCount + 1, MaxConst, -MaxConst, MaxConst + 1, 1 << 40}
	o := Op{Kind: Kind(b[0] % uint8(kindEnd+1))}
	raw := int32(binary.BigEndian.Uint32(b[1:5]))
	switch {
	case raw%3 == 0:
		o.Arg = edges[uint32(raw)%uint32(len(edges))]
	case kinds[o.Kind%kindEnd].arg == countArg:
		o.Arg = int64(raw % 70)
	case kinds[o.Kind%kindEnd].arg == noArg:
		o.Arg = int64(raw % 2)
	default:
		o.Arg = int64(raw % 20)
	}
	return o
}

// FuzzRun feeds the interpreter arbitrary programs and inputs: it never
// panics; an error wraps one of the package's errors; a successful run
// keeps every limit; and Invert finds an input for the output it gave.
func FuzzRun(f *testing.F) {
	f.Add([]byte{3, 1, 0, 0, 0, 5, 2, 0, 0, 0, 2, 11, 0, 0, 0, 4}, []byte{1, 2, 3, 4, 5, 6})
	f.Add([]byte{2, 4, 0, 0, 0, 0, 2, 255, 255, 255, 254}, []byte{200, 10, 3})
	f.Add([]byte{1, 12, 0, 0, 0, 2}, []byte{0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, prog, input []byte) {
		var p Program
		if len(prog) > 0 {
			n := int(prog[0]) % (MaxOps + 4)
			for i := 0; i < n && 1+5*i+5 <= len(prog); i++ {
				p = append(p, opFromBytes(prog[1+5*i:]))
			}
		}
		var xs []int64
		scale := int64(1)
		if len(input) > 0 && input[0]%4 == 0 {
			scale = 40000 // reach the value limit
		}
		for i := 1; i+1 < len(input); i += 2 {
			xs = append(xs, int64(int16(binary.BigEndian.Uint16(input[i:])))*scale)
		}
		orig := slices.Clone(xs)
		out, err := Default.Run(p, xs)
		if !slices.Equal(xs, orig) {
			t.Fatal("Run modified its input")
		}
		if err != nil {
			for _, e := range []error{ErrProgram, ErrInputLength, ErrInputValue, ErrOverflow} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("unexpected error %v", err)
		}
		if len(out) > len(xs) {
			t.Fatalf("output of %d values from an input of %d", len(out), len(xs))
		}
		for _, v := range out {
			if v < -Default.MaxValue || v > Default.MaxValue {
				t.Fatalf("output value %d beyond the limit", v)
			}
		}
		found, err := Default.Invert(p, out)
		if err != nil {
			t.Fatalf("program\n%s\non %v outputs %v, but Invert fails: %v", p, xs, out, err)
		}
		if len(found) > len(xs) {
			t.Fatalf("Invert's input %v is longer than the real one %v", found, xs)
		}
	})
}
