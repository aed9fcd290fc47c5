package epoch

import (
	"context"
	"errors"

	"github.com/affine-ledger/ledger/chain"
)

// appliedEarlier reports whether the chain's refusal of a reveal follows
// from an earlier send of it that the chain took though its answer was
// lost (spec/epoch.md, "Reveals"): a send again then finds the commit
// consumed and is refused, while the weights took effect.
//
// The weights row alone cannot tell: a row is often the same epoch after
// epoch, so the one in effect may be the previous reveal's. Nor can the
// row's last_update: subtensor sets it when weights are committed, not
// when they are revealed. What tells is the commit: a reveal is refused
// as finding no commit (chain.ErrNoCommit, chain.ErrCommitMismatch) when
// the commit is no longer pending, and a commit the chain took leaves
// its queue within its window only by being revealed. So the reveal
// counts as taken when a send of it went unjudged (pr.sent), the refusal
// says the commit is gone, the commit was taken (the chain said so, or,
// its answer lost too, the uid's last_update lies between the heads read
// around it: no later commit was taken, so that commit's block is the
// uid's last), and the uid's row in effect is the reveal's weights as
// the chain normalizes them. A read that fails counts as no.
func (d *Driver) appliedEarlier(ctx context.Context, pr pendingReveal, refusal error) bool {
	if pr.sent == 0 || !(errors.Is(refusal, chain.ErrNoCommit) || errors.Is(refusal, chain.ErrCommitMismatch)) {
		return false
	}
	c := d.cfg.Chain
	m, err := c.Metagraph(ctx)
	if err != nil {
		return false
	}
	self, ok := m.Find(d.cfg.Key.Public())
	if !ok {
		return false
	}
	rows, err := c.Weights(ctx)
	if err != nil {
		return false
	}
	for _, row := range rows {
		if row.UID != self.UID {
			continue
		}
		if !pr.committed && (pr.commitTo == 0 || row.LastUpdate < pr.commitFrom || row.LastUpdate > pr.commitTo) {
			return false
		}
		return sameWeights(row, pr.reveal.Weights)
	}
	return false
}

// sameWeights reports whether row's non-zero entries are w's, up to the
// chain's normalization: it scales a row so that its largest value is
// 65535 (chain.Weights), rounding each value, so row[u] is within 1 of
// 65535·w[u]/max(w).
func sameWeights(row chain.WeightRow, w chain.Weights) bool {
	if len(w.UIDs) != len(w.Values) || len(row.UIDs) != len(row.Values) {
		return false
	}
	var top int64
	want := map[uint16]int64{}
	for i, u := range w.UIDs {
		if v := int64(w.Values[i]); v != 0 {
			want[u] = v
			top = max(top, v)
		}
	}
	n := 0
	for i, u := range row.UIDs {
		got := int64(row.Values[i])
		if got == 0 {
			continue
		}
		v, ok := want[u]
		if !ok {
			return false
		}
		if diff := got*top - chain.MaxWeightValue*v; diff > top || -diff > top {
			return false
		}
		n++
	}
	return n == len(want) && n > 0
}
