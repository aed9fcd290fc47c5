package lang

import (
	"errors"
	"fmt"
	"slices"
)

// Errors of Run and Invert, wrapped with the op or value at fault.
var (
	ErrProgram     = errors.New("invalid program")
	ErrInputLength = errors.New("input too long")
	ErrInputValue  = errors.New("input value out of range")
	ErrOverflow    = errors.New("value out of range")
	ErrSteps       = errors.New("step limit exceeded")
	ErrNoInput     = errors.New("no input produces this output")
)

// Limits bound what a run may use. No operation makes a list longer, so
// MaxLen bounds the memory of a run as well as its input.
type Limits struct {
	// MaxLen is the longest input list.
	MaxLen int
	// MaxValue bounds |v| for every input value and every value an
	// operation computes; a larger result is an error, never a wrap-around.
	// It may be at most MaxLimitValue.
	MaxValue int64
	// MaxSteps bounds the work of a run: each op costs the length of the
	// list it reads, at least 1.
	MaxSteps int
}

// MaxLimitValue is the largest MaxValue a Limits may set: with |x| at most
// 10^12 and |C| at most MaxConst, x*C stays inside int64.
const MaxLimitValue = 1_000_000_000_000

// Default holds the limits of abd v1 (spec/envs/abd.md, "Limits"). Its step
// budget is what MaxOps ops over MaxLen values can cost, so no valid program
// and input reach it; it is enforced all the same, so that a run's work is
// bounded by the interpreter and not by an argument about the language.
var Default = Limits{MaxLen: 64, MaxValue: 1_000_000, MaxSteps: MaxOps * 64}

// Run applies p to input and returns the output. It fails on an invalid
// program, on an input longer than MaxLen or with a value beyond MaxValue,
// when an op computes a value beyond MaxValue, or when the step budget runs
// out. Run never modifies input.
func (l Limits) Run(p Program, input []int64) ([]int64, error) {
	if l.MaxLen < 0 || l.MaxValue < 0 || l.MaxValue > MaxLimitValue {
		return nil, fmt.Errorf("invalid limits %+v", l)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	if len(input) > l.MaxLen {
		return nil, fmt.Errorf("%w: %d values > %d", ErrInputLength, len(input), l.MaxLen)
	}
	for i, v := range input {
		if v < -l.MaxValue || v > l.MaxValue {
			return nil, fmt.Errorf("%w: element %d is %d, not in [%d, %d]", ErrInputValue, i+1, v, -l.MaxValue, l.MaxValue)
		}
	}
	cur := slices.Clone(input)
	steps := 0
	for i, o := range p {
		steps += max(1, len(cur))
		if steps > l.MaxSteps {
			return nil, fmt.Errorf("op %d (%s): %w (%d)", i+1, o, ErrSteps, l.MaxSteps)
		}
		var err error
		if cur, err = l.apply(o, cur); err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i+1, o, err)
		}
	}
	return cur, nil
}

// apply runs one checked op; it may reuse xs.
func (l Limits) apply(o Op, xs []int64) ([]int64, error) {
	c := o.Arg
	switch o.Kind {
	case MapAdd, MapMul:
		for i, x := range xs {
			// MaxLimitValue and MaxConst keep x+c and x*c inside int64.
			v := x + c
			if o.Kind == MapMul {
				v = x * c
			}
			if v < -l.MaxValue || v > l.MaxValue {
				return nil, fmt.Errorf("%w: %d not in [%d, %d]", ErrOverflow, v, -l.MaxValue, l.MaxValue)
			}
			xs[i] = v
		}
		return xs, nil
	case Reverse:
		slices.Reverse(xs)
		return xs, nil
	case SortAsc:
		slices.Sort(xs)
		return xs, nil
	case SortDesc:
		slices.Sort(xs)
		slices.Reverse(xs)
		return xs, nil
	case FilterEven:
		return filter(xs, func(x int64) bool { return x%2 == 0 }), nil
	case FilterOdd:
		return filter(xs, func(x int64) bool { return x%2 != 0 }), nil
	case FilterGt:
		return filter(xs, func(x int64) bool { return x > c }), nil
	case FilterLt:
		return filter(xs, func(x int64) bool { return x < c }), nil
	case Take:
		return xs[:min(int64(len(xs)), c)], nil
	case Drop:
		return xs[min(int64(len(xs)), c):], nil
	case Step:
		out := xs[:0]
		for i := 0; i < len(xs); i += int(c) {
			out = append(out, xs[i])
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown op kind %d", ErrProgram, o.Kind)
}

func filter(xs []int64, keep func(int64) bool) []int64 {
	out := xs[:0]
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}
