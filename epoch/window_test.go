package epoch

import (
	"errors"
	"math"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestCheckEpoch: an epoch whose window would wrap past the last block
// number does not exist; the last one that fits does, and its window ends
// at or below MaxUint64.
func TestCheckEpoch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k, tempo uint64
		ok       bool
	}{
		{1, 360, true},
		{0, 360, false},
		{5, 0, false},
		{math.MaxUint64 / 360, 360, true},
		{math.MaxUint64/360 + 1, 360, false},
		{1 << 61, 360, false}, // 2^61·360 = 45·2^64: the end wraps to 0
		{math.MaxUint64, 1, true},
	} {
		err := CheckEpoch(c.k, chain.TempoSchedule(c.tempo))
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNoEpoch)) {
			t.Errorf("CheckEpoch(%d, %d) = %v, want ok %v", c.k, c.tempo, err, c.ok)
			continue
		}
		if c.ok {
			if w := WindowOf(c.k, chain.TempoSchedule(c.tempo)); w.To < w.From || w.To-w.From != c.tempo {
				t.Errorf("WindowOf(%d, %d) = %+v", c.k, c.tempo, w)
			}
		}
	}
}

// TestSubtensorWindows: under subtensor's numbering, epoch k's window is
// chain epoch k−1, tempo + 1 blocks offset by the netuid, and the windows
// of consecutive epochs tile the blocks.
func TestSubtensorWindows(t *testing.T) {
	t.Parallel()
	s := chain.SubtensorSchedule(7, 360)
	prev := WindowOf(1, s)
	if prev.From != 0 || prev.To != 361-8 {
		t.Fatalf("epoch 1 reads %+v, want [0, 353)", prev)
	}
	for k := uint64(2); k < 10; k++ {
		w := WindowOf(k, s)
		if w.From != prev.To || w.To-w.From != 361 || s.Of(w.From) != k-1 || s.Of(w.To) != k {
			t.Fatalf("epoch %d reads %+v after %+v", k, w, prev)
		}
		prev = w
	}
}
