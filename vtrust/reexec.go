package vtrust

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// MaxEvidence bounds the fault outcomes kept per validator in an Output:
// one per faulted record, those with the smallest record CIDs first. The
// count of faulted records is always complete.
const MaxEvidence = 16

// PPM is one, in parts per million.
const PPM = 1_000_000

// reexecTally is one validator's re-execution record for the epoch: every
// record judged, counted once at its most severe verdict.
type reexecTally struct {
	agreed, disagreed, faulted uint64
	evidence                   []Outcome
}

// ppm is the re-execution agreement: 0 after any fault, else the floor of
// PPM × agreed / judged, and PPM when nothing was judged.
func (t *reexecTally) ppm() uint32 {
	judged := t.agreed + t.disagreed + t.faulted
	switch {
	case t.faulted > 0:
		return 0
	case judged == 0:
		return PPM
	}
	return uint32(mulDiv(t.agreed, PPM, judged))
}

// tallyOutcomes checks every outcome, merges them per (validator, record),
// keeping the most severe verdict (fault over disagree over agree), and
// counts each validator's records. index maps a validator's hotkey to its
// position; outcomes about anyone else are skipped. For each faulted
// record the evidence is the fault outcome that sorts first by auditor,
// then block, then reason, so the same set of outcomes always keeps the
// same one.
//
// This is most of an epoch's work (an outcome per transcript), so it
// reads the outcomes once, in input order, and merges each validator's
// records in a small open-addressing table keyed by the record digest's
// first 8 bytes, which stays in cache.
func tallyOutcomes(outcomes []Outcome, index map[[32]byte]int, n int) ([]reexecTally, error) {
	rank := make([]int32, len(outcomes))
	prefix := make([]uint64, len(outcomes))
	severity := make([]int8, len(outcomes))
	starts := make([]int, n+1)
	last, lastRank := [32]byte{}, int32(-1)
	for i := range outcomes {
		o := &outcomes[i]
		if err := o.Check(); err != nil {
			return nil, fmt.Errorf("%w: outcome %d: %w", ErrInput, i, err)
		}
		if o.Validator != last || i == 0 {
			// outcomes usually come a block at a time: one lookup per run
			last, lastRank = o.Validator, -1
			if v, ok := index[o.Validator]; ok {
				lastRank = int32(v)
			}
		}
		rank[i] = lastRank
		if lastRank >= 0 {
			starts[lastRank+1]++
			d := digest(o.Record.Cid)
			prefix[i] = binary.BigEndian.Uint64(d[:8])
			sev, _ := o.Verdict.severity()
			severity[i] = int8(sev)
		}
	}
	for v := range n {
		starts[v+1] += starts[v]
	}
	order := make([]int32, starts[n])
	next := slices.Clone(starts[:n])
	for i, v := range rank {
		if v >= 0 {
			order[next[v]] = int32(i)
			next[v]++
		}
	}
	tallies := make([]reexecTally, n)
	var table []slot
	for v := range n {
		bucket := order[starts[v]:starts[v+1]]
		size := 1 << bits.Len(uint(2*len(bucket)))
		if cap(table) < size {
			table = make([]slot, size)
		}
		table = table[:size]
		clear(table)
		mask := uint64(size - 1)
		for _, i := range bucket {
			o := &outcomes[i]
			for h := prefix[i] & mask; ; h = (h + 1) & mask {
				s := &table[h]
				if !s.used {
					*s = slot{prefix: prefix[i], best: i, used: true, severity: severity[i]}
					break
				}
				if s.prefix == prefix[i] && sameRecord(o, &outcomes[s.best]) {
					if moreSevere(o, &outcomes[s.best]) {
						s.best, s.severity = i, severity[i]
					}
					break
				}
			}
		}
		t := &tallies[v]
		for _, s := range table {
			switch {
			case !s.used:
			case s.severity == 0:
				t.agreed++
			case s.severity == 1:
				t.disagreed++
			default:
				t.faulted++
				t.evidence = append(t.evidence, outcomes[s.best])
			}
		}
		slices.SortFunc(t.evidence, func(a, b Outcome) int {
			return strings.Compare(a.Record.Cid.KeyString(), b.Record.Cid.KeyString())
		})
		if len(t.evidence) > MaxEvidence {
			t.evidence = slices.Clip(t.evidence[:MaxEvidence])
		}
	}
	return tallies, nil
}

// slot is one record of the merge table: its digest prefix, the outcome
// kept for it and that outcome's severity (so counting need not read the
// outcomes again), and whether the slot is taken.
type slot struct {
	prefix   uint64
	best     int32
	severity int8
	used     bool
}

func sameRecord(a, b *Outcome) bool { return a.Record.Cid.KeyString() == b.Record.Cid.KeyString() }

// moreSevere reports whether o should replace the kept outcome p of the
// same record: a more severe verdict, or the same verdict from a smaller
// (auditor, block, reason).
func moreSevere(o, p *Outcome) bool {
	so, _ := o.Verdict.severity()
	sp, _ := p.Verdict.severity()
	if so != sp {
		return so > sp
	}
	if c := strings.Compare(string(o.Auditor[:]), string(p.Auditor[:])); c != 0 {
		return c < 0
	}
	if c := strings.Compare(o.Block.Cid.KeyString(), p.Block.Cid.KeyString()); c != 0 {
		return c < 0
	}
	return o.Reason < p.Reason
}
