package lang

import (
	"fmt"
	"slices"
)

// order is what is known about the order of every list a program prefix
// can produce.
type order uint8

const (
	anyOrder order = iota
	ascending
	descending
)

func (o order) flip() order {
	switch o {
	case ascending:
		return descending
	case descending:
		return ascending
	}
	return anyOrder
}

// after returns the order of op's outputs given the order of its inputs.
func (o order) after(op Op) order {
	switch {
	case op.Kind == SortAsc:
		return ascending
	case op.Kind == SortDesc:
		return descending
	case op.Kind == Reverse, op.Kind == MapMul && op.Arg < 0:
		return o.flip()
	}
	return o
}

// Invert returns an input on which p outputs exactly output, or an error
// wrapping ErrNoInput when there is none. It works backwards, one op at a
// time, with the rules of spec/envs/abd.md ("Working backwards"): a map is
// undone exactly; reverse is undone by reversing; filter and take accept
// their output as input; drop K prepends K copies of the first element;
// step K repeats each element but the last K times; a sort accepts its
// output, reversed when the ops before it can only produce lists in the
// opposite order. Every list these rules build lies in the set of lists the
// ops before it can produce, so whenever output has a preimage at all,
// Invert finds one. It checks its answer by running p forward.
func (l Limits) Invert(p Program, output []int64) ([]int64, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if len(output) > l.MaxLen {
		return nil, fmt.Errorf("%w: %d values > %d", ErrNoInput, len(output), l.MaxLen)
	}
	// Every value a run outputs is within MaxValue; checking it here also
	// keeps the backward arithmetic far from int64 wrap-around (each op
	// moves a value by at most MaxConst).
	for i, v := range output {
		if v < -l.MaxValue || v > l.MaxValue {
			return nil, fmt.Errorf("%w: element %d is %d, not in [%d, %d]", ErrNoInput, i+1, v, -l.MaxValue, l.MaxValue)
		}
	}
	before := make([]order, len(p))
	o := anyOrder
	for i, op := range p {
		before[i] = o
		o = o.after(op)
	}
	ys := slices.Clone(output)
	for i := len(p) - 1; i >= 0; i-- {
		var err error
		if ys, err = l.preimage(p[i], ys, before[i]); err != nil {
			return nil, fmt.Errorf("%w: op %d (%s): %v", ErrNoInput, i+1, p[i], err)
		}
	}
	got, err := l.Run(p, ys)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoInput, err)
	}
	if !slices.Equal(got, output) {
		return nil, fmt.Errorf("%w: the backward rules give %s, which outputs %s", ErrNoInput, FormatList(ys), FormatList(got))
	}
	return ys, nil
}

// preimage returns a list that op maps to ys, given the order of the
// lists op can receive. It may reuse ys.
func (l Limits) preimage(op Op, ys []int64, in order) ([]int64, error) {
	c := op.Arg
	switch op.Kind {
	case MapAdd:
		for i := range ys {
			ys[i] -= c
		}
	case MapMul:
		for i, y := range ys {
			if y%c != 0 {
				return nil, fmt.Errorf("%d is not a multiple of %d", y, c)
			}
			ys[i] = y / c
		}
	case Reverse:
		slices.Reverse(ys)
	case SortAsc:
		if !slices.IsSorted(ys) {
			return nil, fmt.Errorf("%s is not ascending", FormatList(ys))
		}
		if in == descending {
			slices.Reverse(ys)
		}
	case SortDesc:
		slices.Reverse(ys)
		if !slices.IsSorted(ys) {
			return nil, fmt.Errorf("%s is not descending", FormatList(ys))
		}
		if in != ascending {
			slices.Reverse(ys)
		}
	case FilterEven, FilterOdd, FilterGt, FilterLt, Take:
		// The output itself passes the filter (or is short enough).
	case Drop:
		if len(ys) == 0 {
			return ys, nil
		}
		if len(ys)+int(c) > l.MaxLen {
			return nil, fmt.Errorf("input would exceed %d values", l.MaxLen)
		}
		ys = append(slices.Repeat(ys[:1], int(c)), ys...)
	case Step:
		if len(ys) == 0 {
			return ys, nil
		}
		if (len(ys)-1)*int(c)+1 > l.MaxLen {
			return nil, fmt.Errorf("input would exceed %d values", l.MaxLen)
		}
		xs := make([]int64, 0, (len(ys)-1)*int(c)+1)
		for i, y := range ys {
			n := int(c)
			if i == len(ys)-1 {
				n = 1
			}
			for range n {
				xs = append(xs, y)
			}
		}
		ys = xs
	default:
		return nil, fmt.Errorf("unknown op kind %d", op.Kind)
	}
	return ys, nil
}
