package chain

import (
	"math"
	"math/bits"
)

// Schedule is how a chain numbers its epochs: block n lies in epoch
// (n + Offset) / Length. Its epochs are the ledger's too (spec/epoch.md):
// epoch k of the ledger reads the blocks of chain epoch k−1 and is run
// once the chain reaches chain epoch k, so that the weights it sets and
// the commits it reveals fall where the chain expects them.
//
// The local chain counts tempo blocks from block 0 (Length = tempo,
// Offset = 0) unless its genesis asks for subtensor's rule. Subtensor
// offsets each subnet's epochs by its netuid so that subnets do not all
// run at once: its get_epoch_index is (n + netuid + 1) / (tempo + 1).
type Schedule struct {
	Length uint64
	Offset uint64
}

// TempoSchedule numbers epochs of tempo blocks from block 0.
func TempoSchedule(tempo uint64) Schedule { return Schedule{Length: tempo} }

// SubtensorSchedule is subtensor's numbering for a subnet.
func SubtensorSchedule(netuid uint16, tempo uint64) Schedule {
	return Schedule{Length: tempo + 1, Offset: uint64(netuid) + 1}
}

// Valid reports whether s numbers any epoch: a zero length does not.
func (s Schedule) Valid() bool { return s.Length > 0 }

// Of returns the epoch block n lies in. s must be valid.
func (s Schedule) Of(n uint64) uint64 {
	lo, hi := bits.Add64(n, s.Offset, 0)
	if hi >= s.Length {
		return math.MaxUint64 // only with a length of 1 and a block number near the end
	}
	q, _ := bits.Div64(hi, lo, s.Length)
	return q
}

// Start returns the first block of epoch e, 0 for the epochs that begin
// before block 0, and false if e begins past the last block number.
func (s Schedule) Start(e uint64) (uint64, bool) {
	if e > math.MaxUint64/s.Length {
		return 0, false
	}
	b := e * s.Length
	if b < s.Offset {
		return 0, true
	}
	return b - s.Offset, true
}

// IsStart reports whether block n is the first block of its epoch.
func (s Schedule) IsStart(n uint64) bool {
	start, ok := s.Start(s.Of(n))
	return ok && start == n
}

// Schedule returns how the chain of p numbers its epochs: EpochLength and
// EpochOffset where the backend set them, else TempoSchedule(Tempo).
func (p Params) Schedule() Schedule {
	if p.EpochLength > 0 {
		return Schedule{Length: p.EpochLength, Offset: p.EpochOffset}
	}
	return TempoSchedule(p.Tempo)
}
