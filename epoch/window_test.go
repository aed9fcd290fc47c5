package epoch

import (
	"errors"
	"math"
	"testing"
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
		err := CheckEpoch(c.k, c.tempo)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNoEpoch)) {
			t.Errorf("CheckEpoch(%d, %d) = %v, want ok %v", c.k, c.tempo, err, c.ok)
			continue
		}
		if c.ok {
			if w := WindowOf(c.k, c.tempo); w.To < w.From || w.To-w.From != c.tempo {
				t.Errorf("WindowOf(%d, %d) = %+v", c.k, c.tempo, w)
			}
		}
	}
}
