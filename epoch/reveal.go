package epoch

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
)

// pendingReveal is a weight commit waiting for its reveal epoch. The chain
// takes a reveal only in the chain epoch that included the commit plus
// RevealPeriod (chain.Chain.RevealWeights), whichever epoch the driver
// computed when it committed: an epoch run late commits in a later chain
// epoch. The driver knows the inclusion epoch only as lying between the
// heads it read before and after the commit, so the reveal is due in
// [from, to], almost always a single epoch.
type pendingReveal struct {
	epoch    uint64 // the epoch the driver computed, for the logs
	from, to uint64
	reveal   chain.Reveal
}

// chainEpoch is the chain epoch block n belongs to (spec/epoch.md), as
// the chain numbers them: subtensor takes a reveal by its own numbering.
func chainEpoch(n uint64, p chain.Params) uint64 { return p.Schedule().Of(n) }

// commitWeights commits r for epoch k and schedules its reveal.
func (d *Driver) commitWeights(ctx context.Context, p chain.Params, k uint64, r chain.Reveal) error {
	c := d.cfg.Chain
	before, err := c.Head(ctx)
	if err != nil {
		return fmt.Errorf("read chain head: %w", err)
	}
	if err := c.CommitWeights(ctx, d.cfg.Key, chain.CommitHash(d.cfg.Key.Public(), p.Netuid, r)); err != nil {
		return fmt.Errorf("commit weights: %w", err)
	}
	// A head read that fails leaves the window open by one epoch: the
	// commit was applied by now, so it lies at most one epoch past before.
	to := chainEpoch(before.Number, p) + 1
	if after, err := c.Head(ctx); err == nil {
		to = chainEpoch(after.Number, p)
	}
	d.mu.Lock()
	d.pending = append(d.pending, pendingReveal{
		epoch: k, from: chainEpoch(before.Number, p) + p.RevealPeriod, to: to + p.RevealPeriod, reveal: r,
	})
	d.mu.Unlock()
	return nil
}

// reveal reveals the commits due in the chain's current epoch and returns
// how many it revealed. A reveal the chain refuses is tried again in the
// next epoch of its window, then logged and dropped (spec/epoch.md): it
// never fails the epoch, whose own weights are still to be committed.
func (d *Driver) reveal(ctx context.Context, p chain.Params) int {
	head, err := d.cfg.Chain.Head(ctx)
	if err != nil {
		d.cfg.Logger.Warn("epoch: no reveal this epoch: read chain head", "err", err)
		return 0
	}
	now := chainEpoch(head.Number, p)
	d.mu.Lock()
	pending := d.pending
	d.pending = nil
	d.mu.Unlock()
	n := 0
	var keep []pendingReveal
	for _, pr := range pending {
		switch {
		case now < pr.from:
			keep = append(keep, pr)
		case now > pr.to:
			d.cfg.Logger.Warn("epoch: weight commit expired unrevealed", "epoch", pr.epoch, "reveal_by", pr.to, "now", now)
		default:
			err := d.cfg.Chain.RevealWeights(ctx, d.cfg.Key, pr.reveal)
			switch {
			case err == nil:
				n++
			case now < pr.to:
				keep = append(keep, pr)
			default:
				d.cfg.Logger.Warn("epoch: reveal failed, dropped", "epoch", pr.epoch, "chain_epoch", now, "err", err)
			}
		}
	}
	d.mu.Lock()
	d.pending = append(keep, d.pending...)
	d.mu.Unlock()
	return n
}
