package chain_test

import (
	"errors"
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

// TestAnchoredSchedule: subtensor's numbering since runtime 423, epoch
// index beginning at block start and the next ones every length blocks,
// in both directions from the anchor; a negative offset where the anchor
// lies later than index·length.
func TestAnchoredSchedule(t *testing.T) {
	for _, c := range []struct{ length, start, index uint64 }{
		{360, 7_000_000, 19_390}, // Finney-like: the migration seeds the old index, ~block/361
		{10, 5, 3},               // a positive offset
		{10, 100, 2},             // epoch 0 begins at block 80
		{1, 50, 50},              // offset 0
	} {
		s, err := chain.AnchoredSchedule(c.length, c.start, c.index)
		if err != nil {
			t.Fatal(err)
		}
		for j := uint64(0); j < 4; j++ {
			e, want := c.index-j, c.start-j*c.length
			if j > c.index || j*c.length > c.start {
				e, want = c.index+j, c.start+j*c.length // only forward
			}
			if got, ok := s.Start(e); !ok || got != want || s.Of(want) != e || !s.IsStart(want) {
				t.Fatalf("%+v: epoch %d starts at %d (%v), want %d; block %d is in epoch %d", c, e, got, ok, want, want, s.Of(want))
			}
			if want > 0 && e > 0 && s.Of(want-1) != e-1 {
				t.Fatalf("%+v: block %d is in epoch %d, want %d", c, want-1, s.Of(want-1), e-1)
			}
			e, want = c.index+j, c.start+j*c.length
			if got, ok := s.Start(e); !ok || got != want || s.Of(want) != e || s.Of(want+c.length-1) != e {
				t.Fatalf("%+v: epoch %d starts at %d (%v), want %d", c, e, got, ok, want)
			}
		}
	}
	// Epoch 0 of a negative offset begins after block 0: the blocks
	// before count in epoch 0, and none of them starts it.
	s, _ := chain.AnchoredSchedule(10, 100, 2)
	if s.Offset != -80 || s.Of(0) != 0 || s.Of(79) != 0 || s.IsStart(0) || !s.IsStart(80) {
		t.Fatalf("%+v: Of(0) %d, Of(79) %d, IsStart(0) %v, IsStart(80) %v", s, s.Of(0), s.Of(79), s.IsStart(0), s.IsStart(80))
	}
	// Anchored at one of get_epoch_index's epochs with its length, it is
	// get_epoch_index.
	if s, _ := chain.AnchoredSchedule(361, 5*361-8, 5); s != chain.SubtensorSchedule(7, 360) {
		t.Fatalf("%+v, want %+v", s, chain.SubtensorSchedule(7, 360))
	}
	if s, err := chain.AnchoredSchedule(0, 10, 1); err != nil || s.Valid() {
		t.Fatalf("tempo 0: %+v %v, want no epochs", s, err)
	}
	for _, c := range []struct{ length, start, index uint64 }{
		{360, 0, math.MaxUint64 / 2},
		{2, 0, 1 << 62},
		{360, 1 << 63, 0},
	} {
		if _, err := chain.AnchoredSchedule(c.length, c.start, c.index); !errors.Is(err, chain.ErrNoSchedule) {
			t.Errorf("%+v: %v, want ErrNoSchedule", c, err)
		}
	}
	if p := (chain.Params{Tempo: 10, EpochLength: 10, EpochOffset: -80}); p.Schedule() != s {
		t.Errorf("params with a negative offset number epochs as %+v, want %+v", p.Schedule(), s)
	}
}

func TestNegativeOffsetEdges(t *testing.T) {
	s := chain.Schedule{Length: 1, Offset: -10}
	if got := s.Of(math.MaxUint64); got != math.MaxUint64-10 {
		t.Errorf("Of(max) = %d", got)
	}
	if _, ok := s.Start(math.MaxUint64 - 5); ok {
		t.Error("an epoch past the last block number has a start")
	}
	s = chain.Schedule{Length: 3, Offset: math.MinInt64}
	if start, ok := s.Start(1); !ok || start != 1<<63+3 || s.Of(start) != 1 || s.Of(start-1) != 0 {
		t.Errorf("offset −2^63: epoch 1 starts at %d (%v)", start, ok)
	}
}
