package chain_test

import (
	"math"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// subtensorEpochIndex and blocksUntilNextEpoch are subtensor's
// get_epoch_index and blocks_until_next_epoch (pallets/subtensor), written
// out as they are there, to hold SubtensorSchedule to.
func subtensorEpochIndex(netuid uint16, tempo, block uint64) uint64 {
	return (block + uint64(netuid) + 1) / (tempo + 1)
}

func blocksUntilNextEpoch(netuid uint16, tempo, block uint64) uint64 {
	return tempo - (block+uint64(netuid)+1)%(tempo+1)
}

func TestSubtensorSchedule(t *testing.T) {
	for _, c := range []struct {
		netuid uint16
		tempo  uint64
	}{{1, 360}, {64, 360}, {0, 99}, {400, 360}, {7, 10}} {
		s := chain.SubtensorSchedule(c.netuid, c.tempo)
		for n := uint64(0); n < 5*(c.tempo+1)+uint64(c.netuid); n++ {
			if got, want := s.Of(n), subtensorEpochIndex(c.netuid, c.tempo, n); got != want {
				t.Fatalf("netuid %d tempo %d block %d: epoch %d, subtensor's %d", c.netuid, c.tempo, n, got, want)
			}
			// Subtensor runs a subnet's epoch at the last block of each of
			// its epochs: the next block starts one.
			if s.IsStart(n+1) != (blocksUntilNextEpoch(c.netuid, c.tempo, n) == 0) {
				t.Fatalf("netuid %d tempo %d: block %d starts an epoch: %v; subtensor runs one at block %d: %v",
					c.netuid, c.tempo, n+1, s.IsStart(n+1), n, blocksUntilNextEpoch(c.netuid, c.tempo, n) == 0)
			}
		}
		for e := uint64(1); e < 6; e++ {
			start, ok := s.Start(e)
			if !ok {
				t.Fatal("no start")
			}
			if start > 0 && (s.Of(start) != e || s.Of(start-1) != e-1) {
				t.Fatalf("netuid %d tempo %d: epoch %d starts at %d, which is in epoch %d (the block before in %d)", c.netuid, c.tempo, e, start, s.Of(start), s.Of(start-1))
			}
		}
	}
}

func TestTempoSchedule(t *testing.T) {
	s := chain.TempoSchedule(360)
	for _, c := range []struct{ block, epoch uint64 }{{0, 0}, {359, 0}, {360, 1}, {719, 1}, {720, 2}} {
		if got := s.Of(c.block); got != c.epoch {
			t.Errorf("block %d: epoch %d, want %d", c.block, got, c.epoch)
		}
	}
	if start, ok := s.Start(3); !ok || start != 1080 {
		t.Errorf("epoch 3 starts at %d (%v), want 1080", start, ok)
	}
	if (chain.Params{Tempo: 360}).Schedule() != s {
		t.Error("params without an epoch length do not number epochs by tempo")
	}
}

func TestScheduleEdges(t *testing.T) {
	s := chain.Schedule{Length: 1, Offset: 10}
	if got := s.Of(math.MaxUint64); got != math.MaxUint64 {
		t.Errorf("Of(max) = %d, want to saturate", got)
	}
	if _, ok := chain.TempoSchedule(360).Start(math.MaxUint64/360 + 1); ok {
		t.Error("an epoch past the last block number has a start")
	}
	s = chain.SubtensorSchedule(65535, 360)
	// (2^64 − 1 + 65536) / 361, without the wrap-around.
	q, r := uint64(math.MaxUint64/361), uint64(math.MaxUint64%361)
	if got, want := s.Of(math.MaxUint64), q+(r+65536)/361; got != want {
		t.Errorf("Of(max) = %d, want %d", got, want)
	}
}
