package chain

import (
	"fmt"
	"slices"
)

// MinRowLen is the fewest uids a weight row must name on a subnet of n
// neurons whose min_allowed_weights is minAllowed: the smaller of the
// two, as subtensor's check_length caps it (a subnet smaller than its
// minimum takes rows naming every neuron).
func MinRowLen(minAllowed uint16, n int) int {
	return min(int(minAllowed), max(n, 0))
}

// CheckLength reports whether w, set by uid self on a subnet of n neurons,
// names enough uids (subtensor's check_length): at least
// MinRowLen(minAllowed, n), unless it is a single self-weight. Every entry
// counts, zero-valued ones too: the chain counts the row, not its weight.
func CheckLength(w Weights, self uint16, minAllowed uint16, n int) error {
	if len(w.UIDs) == 1 && w.UIDs[0] == self {
		return nil
	}
	if want := MinRowLen(minAllowed, n); len(w.UIDs) < want {
		return fmt.Errorf("%w: %d uids, the subnet takes rows of at least %d (min_allowed_weights %d, %d neurons)",
			ErrTooFewWeights, len(w.UIDs), want, minAllowed, n)
	}
	return nil
}

// PadWeights returns w with zero-valued entries for the lowest uids it
// does not name, until it names MinRowLen(minAllowed, n) uids, so that a
// subnet whose min_allowed_weights is above the row's length takes it: a
// zero weight counts toward the chain's length check and gives the uid
// nothing in Yuma (a row is normalized by its sum, consensus and bonds
// are per entry). The uids w names keep their values, in front; a row
// long enough comes back as it is. w is not modified.
func PadWeights(w Weights, minAllowed uint16, n int) Weights {
	want := MinRowLen(minAllowed, n)
	if len(w.UIDs) >= want {
		return w
	}
	out := Weights{UIDs: slices.Clone(w.UIDs), Values: slices.Clone(w.Values), VersionKey: w.VersionKey}
	named := make(map[uint16]bool, len(w.UIDs))
	for _, u := range w.UIDs {
		named[u] = true
	}
	for u := 0; u < n && len(out.UIDs) < want; u++ {
		if !named[uint16(u)] {
			out.UIDs = append(out.UIDs, uint16(u))
			out.Values = append(out.Values, 0)
		}
	}
	return out
}
