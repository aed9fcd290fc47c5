package chain

import (
	"errors"
	"fmt"
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
// Offset = 0) unless its genesis asks for subtensor's rule before runtime
// 423. That rule offsets each subnet's epochs by its netuid so that
// subnets do not all run at once: its get_epoch_index was
// (n + netuid + 1) / (tempo + 1) (SubtensorSchedule). Since runtime 423
// ("dynamic tempo") subtensor counts a subnet's epochs in storage instead
// and starts one every tempo blocks after the last (AnchoredSchedule): the
// schedule is then the one in force at the block it was read at, and a
// later read may find it moved (spec/chain.md, "Subtensor").
//
// A negative Offset starts epoch 0 at block −Offset; the blocks before it
// are counted in epoch 0 too.
type Schedule struct {
	Length uint64
	Offset int64
}

// TempoSchedule numbers epochs of tempo blocks from block 0.
func TempoSchedule(tempo uint64) Schedule { return Schedule{Length: tempo} }

// SubtensorSchedule is subtensor's numbering for a subnet before runtime
// 423: its get_epoch_index.
func SubtensorSchedule(netuid uint16, tempo uint64) Schedule {
	return Schedule{Length: tempo + 1, Offset: int64(netuid) + 1}
}

// ErrNoSchedule: numbers no schedule can hold.
var ErrNoSchedule = errors.New("no such epoch schedule")

// AnchoredSchedule numbers epochs of length blocks so that epoch index
// begins at block start: subtensor's numbering since runtime 423, where
// start is the subnet's LastEpochBlock, index its SubnetEpochIndex and
// length its tempo. It fails (ErrNoSchedule) on numbers too large for an
// Offset, which no chain reaches. A zero length gives the invalid
// schedule, of a chain that runs no epochs.
func AnchoredSchedule(length, start, index uint64) (Schedule, error) {
	if length == 0 {
		return Schedule{}, nil
	}
	hi, lo := bits.Mul64(index, length)
	if hi != 0 || lo > math.MaxInt64 || start > math.MaxInt64 {
		return Schedule{}, fmt.Errorf("%w: epoch %d of %d blocks beginning at block %d", ErrNoSchedule, index, length, start)
	}
	return Schedule{Length: length, Offset: int64(lo) - int64(start)}, nil
}

// Valid reports whether s numbers any epoch: a zero length does not.
func (s Schedule) Valid() bool { return s.Length > 0 }

// lag is the block epoch 0 begins at when Offset is negative.
func (s Schedule) lag() uint64 { return uint64(-(s.Offset + 1)) + 1 }

// Of returns the epoch block n lies in. s must be valid.
func (s Schedule) Of(n uint64) uint64 {
	if s.Offset < 0 {
		if lag := s.lag(); n >= lag {
			return (n - lag) / s.Length
		}
		return 0
	}
	lo, hi := bits.Add64(n, uint64(s.Offset), 0)
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
	if s.Offset < 0 {
		b, carry := bits.Add64(b, s.lag(), 0)
		return b, carry == 0
	}
	if off := uint64(s.Offset); b >= off {
		return b - off, true
	}
	return 0, true
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
