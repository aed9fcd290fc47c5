package chain

import (
	"errors"
	"slices"
	"testing"
)

// TestCheckLength follows subtensor's check_length and its tests
// (pallets/subtensor/src/tests/weights.rs, test_check_length_*): the
// minimum is capped at the subnet's size, a single self-weight always
// passes, and zero-valued entries count.
func TestCheckLength(t *testing.T) {
	t.Parallel()
	row := func(uids ...uint16) Weights {
		return Weights{UIDs: uids, Values: make([]uint16, len(uids))}
	}
	for _, c := range []struct {
		name       string
		w          Weights
		self       uint16
		minAllowed uint16
		n          int
		ok         bool
	}{
		{"one uid, min 1", row(5), 0, 1, 10, true},
		{"one uid, min 0", row(5), 0, 0, 10, true},
		{"one uid, min 3", row(5), 0, 3, 10, false},
		{"self-weight, min 3", row(4), 4, 3, 10, true},
		{"two uids, min 3 of 7 neurons", row(1, 2), 1, 3, 7, false},
		{"three uids, min 3", row(1, 2, 3), 1, 3, 7, true},
		{"min above the subnet's size: every neuron", row(0, 1, 2), 0, 1024, 3, true},
		{"min above the subnet's size: one short", row(0, 1), 5, 1024, 3, false},
		{"zero values count", Weights{UIDs: []uint16{7, 0, 1}, Values: []uint16{65535, 0, 0}}, 9, 3, 10, true},
	} {
		err := CheckLength(c.w, c.self, c.minAllowed, c.n)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrTooFewWeights)) {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
	}
}

func TestPadWeights(t *testing.T) {
	t.Parallel()
	winner := Weights{UIDs: []uint16{2}, Values: []uint16{MaxWeightValue}, VersionKey: 7}
	for _, c := range []struct {
		name       string
		minAllowed uint16
		n          int
		uids       []uint16
		values     []uint16
	}{
		{"min 1 leaves it", 1, 10, []uint16{2}, []uint16{MaxWeightValue}},
		{"min 0 leaves it", 0, 10, []uint16{2}, []uint16{MaxWeightValue}},
		{"min 3 adds the lowest other uids", 3, 10, []uint16{2, 0, 1}, []uint16{MaxWeightValue, 0, 0}},
		{"min 4 skips the winner's uid", 4, 10, []uint16{2, 0, 1, 3}, []uint16{MaxWeightValue, 0, 0, 0}},
		{"min above the subnet's size: every neuron", 1024, 4, []uint16{2, 0, 1, 3}, []uint16{MaxWeightValue, 0, 0, 0}},
	} {
		got := PadWeights(winner, c.minAllowed, c.n)
		if !slices.Equal(got.UIDs, c.uids) || !slices.Equal(got.Values, c.values) || got.VersionKey != 7 {
			t.Errorf("%s: %+v, want uids %v values %v", c.name, got, c.uids, c.values)
			continue
		}
		if err := CheckLength(got, 9, c.minAllowed, c.n); err != nil {
			t.Errorf("%s: the padded row is refused: %v", c.name, err)
		}
		if err := CheckWeights(got, c.n); err != nil {
			t.Errorf("%s: the padded row is invalid: %v", c.name, err)
		}
	}
	if len(winner.UIDs) != 1 || len(winner.Values) != 1 {
		t.Errorf("PadWeights changed its argument: %+v", winner)
	}
}
