package lang

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want Program
		err  string // substring of the error; "" when the text parses
	}{
		{text: "reverse", want: Program{{Kind: Reverse}}},
		{text: "map add 3\nmap mul -2\nsort asc\nsort desc", want: Program{{MapAdd, 3}, {MapMul, -2}, {Kind: SortAsc}, {Kind: SortDesc}}},
		{text: "filter even\nfilter odd\nfilter gt -5\nfilter lt 0", want: Program{{Kind: FilterEven}, {Kind: FilterOdd}, {FilterGt, -5}, {FilterLt, 0}}},
		{text: "take 1\ndrop 64\nstep 2", want: Program{{Take, 1}, {Drop, 64}, {Step, 2}}},
		{text: "\n  map\tadd   7 \r\n\n reverse\r\n", want: Program{{MapAdd, 7}, {Kind: Reverse}}},
		{text: "map add 1000000\nmap mul -1000000", want: Program{{MapAdd, 1000000}, {MapMul, -1000000}}},
		{text: "", err: "no ops"},
		{text: " \n\t\n", err: "no ops"},
		{text: "Reverse", err: `line 1: unknown op "Reverse"`},
		{text: "reverse\nrotate 2", err: `line 2: unknown op "rotate 2"`},
		{text: "reverse 1", err: "takes no argument"},
		{text: "map add", err: "takes one integer argument, got 0 words"},
		{text: "map add 1 2", err: "takes one integer argument, got 2 words"},
		{text: "map", err: "unknown op"},
		{text: "map add +3", err: "not a canonical integer"},
		{text: "map add 03", err: "not a canonical integer"},
		{text: "map add -0", err: "not a canonical integer"},
		{text: "map add 1.5", err: "not a canonical integer"},
		{text: "map add 1000001", err: "not in [-1000000, 1000000]"},
		{text: "map add 99999999999999999999", err: "not a canonical integer"},
		{text: "map mul 0", err: "must not be 0"},
		{text: "take 0", err: "count 0 not in [1, 64]"},
		{text: "drop 65", err: "count 65 not in [1, 64]"},
		{text: "step -1", err: "count -1 not in [1, 64]"},
		{text: strings.Repeat("reverse\n", MaxOps), want: slicesRepeat(Op{Kind: Reverse}, MaxOps)},
		{text: strings.Repeat("reverse\n", MaxOps+1), err: "more than 32 ops"},
		{text: strings.Repeat(" ", MaxProgramBytes) + "reverse", err: "bytes > 4096"},
	} {
		got, err := Parse(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrProgram) {
				t.Errorf("Parse(%q) = %v, %v; want an ErrProgram containing %q", tc.text, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
}

func slicesRepeat(o Op, n int) Program {
	p := make(Program, n)
	for i := range p {
		p[i] = o
	}
	return p
}

func TestProgramString(t *testing.T) {
	t.Parallel()
	p := Program{{MapAdd, -4}, {Kind: SortDesc}, {FilterGt, 0}, {Step, 3}}
	want := "map add -4\nsort desc\nfilter gt 0\nstep 3"
	if got := p.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got := FormatList([]int64{3, -1, 0}); got != "[3, -1, 0]" {
		t.Fatalf("FormatList = %q", got)
	}
	if got := FormatList(nil); got != "[]" {
		t.Fatalf("FormatList(nil) = %q", got)
	}
}

// FuzzParse: Parse never panics, and every program it accepts is valid and
// prints to a text that parses back to the same program and prints the
// same again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"map add 3\nmap mul -2\nsort asc", "filter gt -5\ntake 2\n\ndrop 1\nstep 3",
		"reverse 1", "map mul 0", " filter\todd \r\n", "sort", "take 64\ntake 65",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			if !errors.Is(err, ErrProgram) {
				t.Fatalf("error %v does not wrap ErrProgram", err)
			}
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("Parse accepted an invalid program: %v", err)
		}
		again, err := Parse(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("%q parsed to %v, whose text %q parses to %v, %v", text, p, p.String(), again, err)
		}
		if again.String() != p.String() {
			t.Fatalf("text form is not stable: %q then %q", p.String(), again.String())
		}
	})
}
