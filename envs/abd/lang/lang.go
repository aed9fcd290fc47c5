// Package lang is the list language of the abd environment
// (spec/envs/abd.md, "The language"): a program is a pipeline of operations
// over a list of integers. The package holds the program text form, an
// interpreter with hard limits, and Invert, which works backwards from an
// output to an input that produces it.
//
// The operations are chosen so that working backwards never needs a guess:
// every operation either has a unique preimage or one that can be built
// from the output's own values, and the set of lists each prefix of a
// program can produce is described by a value set, an order (none,
// ascending, descending) and a length bound. spec/envs/abd.md proves that
// Invert finds an input for every output the program can produce.
package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is one operation of the language.
type Kind uint8

// The operations, in the order of spec/envs/abd.md. The zero Kind is not an
// operation, so a zero Op is invalid.
const (
	MapAdd Kind = iota + 1
	MapMul
	Reverse
	SortAsc
	SortDesc
	FilterEven
	FilterOdd
	FilterGt
	FilterLt
	Take
	Drop
	Step
	kindEnd
)

// argKind says what an operation's argument is.
type argKind uint8

const (
	noArg    argKind = iota
	valueArg         // an integer constant C, |C| <= MaxConst
	countArg         // a count K, 1 <= K <= MaxCount
)

var kinds = [kindEnd]struct {
	name string
	arg  argKind
}{
	MapAdd:     {"map add", valueArg},
	MapMul:     {"map mul", valueArg},
	Reverse:    {"reverse", noArg},
	SortAsc:    {"sort asc", noArg},
	SortDesc:   {"sort desc", noArg},
	FilterEven: {"filter even", noArg},
	FilterOdd:  {"filter odd", noArg},
	FilterGt:   {"filter gt", valueArg},
	FilterLt:   {"filter lt", valueArg},
	Take:       {"take", countArg},
	Drop:       {"drop", countArg},
	Step:       {"step", countArg},
}

// Syntax limits: what a program may say, whatever it runs on.
const (
	// MaxOps is the most operations a program has.
	MaxOps = 32
	// MaxConst bounds |C| in map add, map mul, filter gt and filter lt.
	MaxConst = 1_000_000
	// MaxCount bounds K in take, drop and step.
	MaxCount = 64
)

// Op is one operation and its argument (0 for operations without one).
type Op struct {
	Kind Kind
	Arg  int64
}

// Program is a pipeline of operations, applied first to last.
type Program []Op

// String returns the op's text form: its words, then the argument in
// decimal if it has one, separated by single spaces ("map mul -3").
func (o Op) String() string {
	if o.Kind == 0 || o.Kind >= kindEnd {
		return fmt.Sprintf("invalid op %d", o.Kind)
	}
	k := kinds[o.Kind]
	if k.arg == noArg {
		return k.name
	}
	return k.name + " " + strconv.FormatInt(o.Arg, 10)
}

// String returns the program's text form: one op per line, joined by "\n",
// without a final newline.
func (p Program) String() string {
	lines := make([]string, len(p))
	for i, o := range p {
		lines[i] = o.String()
	}
	return strings.Join(lines, "\n")
}

// Check reports whether o is an operation of the language with an argument
// in its range.
func (o Op) Check() error {
	if o.Kind == 0 || o.Kind >= kindEnd {
		return fmt.Errorf("unknown op kind %d", o.Kind)
	}
	k := kinds[o.Kind]
	switch {
	case k.arg == noArg && o.Arg != 0:
		return fmt.Errorf("%s takes no argument, got %d", k.name, o.Arg)
	case k.arg == valueArg && (o.Arg < -MaxConst || o.Arg > MaxConst):
		return fmt.Errorf("%s: constant %d not in [%d, %d]", k.name, o.Arg, -MaxConst, MaxConst)
	case o.Kind == MapMul && o.Arg == 0:
		// Multiplying by zero has no preimage rule: it forgets the list.
		return fmt.Errorf("map mul: constant must not be 0")
	case k.arg == countArg && (o.Arg < 1 || o.Arg > MaxCount):
		return fmt.Errorf("%s: count %d not in [1, %d]", k.name, o.Arg, MaxCount)
	}
	return nil
}

// Check reports whether p is a program of the language: 1 to MaxOps valid
// operations.
func (p Program) Check() error {
	if len(p) == 0 {
		return fmt.Errorf("%w: no ops", ErrProgram)
	}
	if len(p) > MaxOps {
		return fmt.Errorf("%w: %d ops > %d", ErrProgram, len(p), MaxOps)
	}
	for i, o := range p {
		if err := o.Check(); err != nil {
			return fmt.Errorf("%w: op %d: %v", ErrProgram, i+1, err)
		}
	}
	return nil
}

// FormatList writes a list the way prompts and reasons show it:
// "[3, -1, 4]", and "[]" when empty.
func FormatList(xs []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte(']')
	return b.String()
}
