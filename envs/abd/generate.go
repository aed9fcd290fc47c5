package abd

import (
	"github.com/affine-ledger/ledger/envs/abd/lang"
	"github.com/affine-ledger/ledger/rng"
)

// Generator parameters (spec/envs/abd.md, "Generator").
const (
	minOps, maxOps           = 3, 6
	minInputLen, maxInputLen = 6, 12
	inputValueBound          = 20
	maxAddConst              = 9
)

// puzzle is one generated challenge: the program, the hidden input it was
// run on and the output the model sees.
type puzzle struct {
	program lang.Program
	input   []int64
	output  []int64
}

// group is a family of ops the generator draws first, then specialises.
type group uint8

const (
	groupNone group = iota
	groupAdd
	groupMul
	groupReverse
	groupSort
	groupFilter
	groupTake
	groupDrop
	groupStep
)

// groupTable is the weighted choice of a group: index uniform(16) into it.
var groupTable = [16]group{
	groupAdd, groupAdd, groupAdd,
	groupMul, groupMul, groupMul,
	groupReverse, groupReverse,
	groupSort, groupSort,
	groupFilter, groupFilter,
	groupTake,
	groupDrop, groupDrop,
	groupStep,
}

var mulConsts = [5]int64{-3, -2, -1, 2, 3}

// shrinks reports whether g can remove elements; such groups are drawn only
// while the list has at least two, so that the output is never empty.
func (g group) shrinks() bool {
	return g == groupFilter || g == groupTake || g == groupDrop || g == groupStep
}

// generate draws a puzzle from seed. Ops are drawn one at a time against
// the list the program has computed so far, so that thresholds and counts
// fit the data and no op empties the list: every op keeps at least one
// element, and the output is never empty.
func generate(seed [32]byte) puzzle {
	s := rng.New(seed)
	nOps := int(s.IntRange(minOps, maxOps))
	input := make([]int64, s.IntRange(minInputLen, maxInputLen))
	for i := range input {
		input[i] = s.IntRange(-inputValueBound, inputValueBound)
	}
	p := puzzle{input: input}
	cur := append([]int64(nil), input...)
	prev := groupNone
	for range nOps {
		g := drawGroup(s, prev, len(cur))
		op := drawOp(s, g, cur)
		p.program = append(p.program, op)
		var err error
		// Values stay below 10^3 in magnitude (at most six ops, each
		// adding at most 9 or multiplying by at most 3), far inside the
		// limits, so this run cannot fail.
		if cur, err = lang.Default.Run(lang.Program{op}, cur); err != nil {
			panic("abd: generated op failed: " + err.Error())
		}
		prev = g
	}
	p.output = cur
	return p
}

// drawGroup draws groups until one is allowed: not the previous op's group
// (no "reverse, reverse" or "sort, sort"), and not a shrinking group while
// the list has fewer than two elements.
func drawGroup(s *rng.Stream, prev group, n int) group {
	for {
		g := groupTable[s.Uniform(uint64(len(groupTable)))]
		if g != prev && (n >= 2 || !g.shrinks()) {
			return g
		}
	}
}

func drawOp(s *rng.Stream, g group, cur []int64) lang.Op {
	n := int64(len(cur))
	switch g {
	case groupAdd:
		c := s.IntRange(1, maxAddConst)
		if s.Chance(1, 2) {
			c = -c
		}
		return lang.Op{Kind: lang.MapAdd, Arg: c}
	case groupMul:
		return lang.Op{Kind: lang.MapMul, Arg: mulConsts[s.Pick(len(mulConsts))]}
	case groupReverse:
		return lang.Op{Kind: lang.Reverse}
	case groupSort:
		if s.Pick(2) == 0 {
			return lang.Op{Kind: lang.SortAsc}
		}
		return lang.Op{Kind: lang.SortDesc}
	case groupFilter:
		// Every filter keeps the element e it is built around.
		kind := s.Pick(3)
		e := cur[s.Pick(len(cur))]
		switch {
		case kind == 1:
			return lang.Op{Kind: lang.FilterGt, Arg: e - 1}
		case kind == 2:
			return lang.Op{Kind: lang.FilterLt, Arg: e + 1}
		case e%2 == 0:
			return lang.Op{Kind: lang.FilterEven}
		default:
			return lang.Op{Kind: lang.FilterOdd}
		}
	case groupTake:
		// Keep at least half of the list, and drop at most half of it:
		// puzzles whose output is a single value are the easy ones.
		return lang.Op{Kind: lang.Take, Arg: s.IntRange((n+1)/2, n-1)}
	case groupDrop:
		return lang.Op{Kind: lang.Drop, Arg: s.IntRange(1, n/2)}
	default: // groupStep
		return lang.Op{Kind: lang.Step, Arg: s.IntRange(2, 3)}
	}
}
