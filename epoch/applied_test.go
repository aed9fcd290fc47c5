package epoch

import (
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestSameWeights: a row is a reveal's weights when its non-zero entries
// are the reveal's scaled to a largest value of 65535, each within 1.
func TestSameWeights(t *testing.T) {
	t.Parallel()
	w := chain.Weights{UIDs: []uint16{4, 7, 9}, Values: []uint16{2, 1, 0}}
	for _, c := range []struct {
		name         string
		uids, values []uint16
		want         bool
	}{
		{"scaled, rounded up", []uint16{4, 7}, []uint16{65535, 32768}, true},
		{"scaled, rounded down", []uint16{7, 4}, []uint16{32767, 65535}, true},
		{"zero entries kept", []uint16{4, 7, 9, 1}, []uint16{65535, 32768, 0, 0}, true},
		{"off by 2", []uint16{4, 7}, []uint16{65535, 32770}, false},
		{"another uid", []uint16{4, 8}, []uint16{65535, 32768}, false},
		{"an extra uid", []uint16{4, 7, 1}, []uint16{65535, 32768, 5}, false},
		{"a uid missing", []uint16{4}, []uint16{65535}, false},
		{"the previous winner", []uint16{7, 4}, []uint16{65535, 32768}, false},
		{"empty", nil, nil, false},
	} {
		if got := sameWeights(chain.WeightRow{UIDs: c.uids, Values: c.values}, w); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
