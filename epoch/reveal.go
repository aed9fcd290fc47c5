package epoch

import (
	"context"
	"errors"
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
	// retry is, once the chain refused a reveal, the chain epoch after
	// the one it refused it in (0 before): the loop reveals on every tick,
	// and a refused reveal is not sent again in the same chain epoch.
	retry uint64
	// unjudged counts the sends in a row the chain did not judge (see
	// reveal); not kept across restarts.
	unjudged int
	// sent is the head block at the first send in the window the chain
	// did not judge (0 before): the chain may have taken it, and refuse
	// the sends after (appliedEarlier).
	sent uint64
	// committed tells that the chain took the commit; else its outcome
	// is unknown, and the chain took it, if at all, in a block between
	// the heads read before and after it, commitFrom and commitTo (0
	// when that read failed).
	committed            bool
	commitFrom, commitTo uint64
	reveal               chain.Reveal
}

// maxUnjudged bounds the sends of a reveal in a row that the chain does
// not judge before it is treated as refused, and tried again in the next
// chain epoch only: a failure that repeats (a transaction pool that drops
// it, on subtensor) is not sent again on every tick for an hour.
const maxUnjudged = 3

// chainEpoch is the chain epoch block n belongs to (spec/epoch.md), as
// the chain numbers them: subtensor takes a reveal by its own numbering.
func chainEpoch(n uint64, p chain.Params) uint64 { return p.Schedule().Of(n) }

// commitWeights commits r for epoch k and schedules its reveal. A commit
// the chain may have taken (its call failed without the chain's refusal:
// the connection lost after sending, a block whose events do not say) is
// scheduled too, and its error returned: revealing a commit the chain does
// not hold costs a refusal, and not revealing one it holds costs the
// epoch's weights.
func (d *Driver) commitWeights(ctx context.Context, p chain.Params, k uint64, r chain.Reveal) error {
	c := d.cfg.Chain
	before, err := c.Head(ctx)
	if err != nil {
		return fmt.Errorf("read chain head: %w", err)
	}
	committed := c.CommitWeights(ctx, d.cfg.Key, chain.CommitHash(d.cfg.Key.Public(), p.Netuid, r))
	if committed != nil && (chain.Refused(committed) || ctx.Err() != nil) {
		return fmt.Errorf("commit weights: %w", committed)
	}
	// A head read that fails leaves the window open by one epoch: the
	// commit was applied by now, so it lies at most one epoch past before.
	to, commitTo := chainEpoch(before.Number, p)+1, uint64(0)
	if after, err := c.Head(ctx); err == nil {
		to, commitTo = chainEpoch(after.Number, p), after.Number
	}
	d.mu.Lock()
	d.pending = append(d.pending, pendingReveal{
		epoch: k, from: chainEpoch(before.Number, p) + p.RevealPeriod, to: to + p.RevealPeriod, reveal: r,
		committed: committed == nil, commitFrom: before.Number, commitTo: commitTo,
	})
	d.mu.Unlock()
	if committed != nil {
		return fmt.Errorf("commit weights (its reveal is scheduled, in case the chain took it): %w", committed)
	}
	return nil
}

// ErrUnrevealed is why an epoch's weights never took effect: its commit
// can no longer be revealed. The error names the epoch.
var ErrUnrevealed = errors.New("weight commit not revealed")

// revealDue reveals the commits due in the chain epoch of block head. A
// commit is taken in that chain epoch only, whichever epoch the driver is
// computing, catching up on or waiting for, so the loop calls it on every
// tick and Step before its own writes. Each commit that can no longer be
// revealed is logged as the failure of the epoch that committed it. Both
// counts go into the next epoch's report.
func (d *Driver) revealDue(ctx context.Context, p chain.Params, head uint64) {
	sent, n, lost := d.reveal(ctx, chainEpoch(head, p), head)
	for _, l := range lost {
		d.cfg.Logger.Warn("epoch failed", "epoch", l.epoch, "err", l.err)
	}
	if sent == 0 && len(lost) == 0 {
		return
	}
	if n > 0 {
		d.cfg.Metrics.EpochRevealed(n)
		d.cfg.Logger.Info("epoch: weights revealed", "commits", n)
	}
	d.mu.Lock()
	d.revealed += n
	for _, l := range lost {
		d.unrevealed = append(d.unrevealed, l.epoch)
	}
	d.mu.Unlock()
	// A commit revealed, or given up, is not to be sent again after a
	// restart (the chain would refuse it, and it would be reported lost),
	// nor one refused in this chain epoch.
	d.persist()
}

// lostReveal is a commit dropped unrevealed: the epoch that made it, and
// why (ErrUnrevealed).
type lostReveal struct {
	epoch uint64
	err   error
}

// reveal sends the reveals due in chain epoch now, at head block head,
// and returns how many it sent and how many the chain took. A commit is
// never sent outside [from, to]: the chain takes a reveal in its one
// reveal epoch only. One the chain refuses is sent again in the next
// epoch of its window, not on the next tick; one refused in the last, or
// whose window has passed, is dropped and returned. One the chain did not
// judge (chain.Refused is false) is sent again on the next tick, up to
// maxUnjudged sends in a row; refused after such a send, it counts as
// taken if the chain shows that send applied (appliedEarlier;
// spec/epoch.md, "Reveals").
func (d *Driver) reveal(ctx context.Context, now, head uint64) (sent, taken int, lost []lostReveal) {
	d.mu.Lock()
	pending := d.pending
	d.pending = nil
	d.mu.Unlock()
	var keep []pendingReveal
	for _, pr := range pending {
		switch {
		case now < pr.from, now < pr.retry:
			keep = append(keep, pr)
		case now > pr.to:
			lost = append(lost, lostReveal{pr.epoch, fmt.Errorf("epoch %d: %w: due in chain %s, the chain is in epoch %d",
				pr.epoch, ErrUnrevealed, pr.due(), now)})
		default:
			err := d.cfg.Chain.RevealWeights(ctx, d.cfg.Key, pr.reveal)
			sent++
			refused := chain.Refused(err)
			if err != nil && !refused && ctx.Err() == nil && pr.sent == 0 {
				pr.sent = head
			}
			switch {
			case err == nil:
				taken++
			case ctx.Err() != nil:
				// Stopping: a restart still in this chain epoch sends it.
				keep = append(keep, pr)
			case refused && d.appliedEarlier(ctx, pr, err):
				d.cfg.Logger.Info("epoch: reveal refused, but its earlier send was applied (its answer lost)",
					"epoch", pr.epoch, "sent_at", pr.sent, "refusal", err)
				taken++
			case !refused && pr.unjudged+1 < maxUnjudged:
				// Not judged (the chain unreachable, the call cut): the
				// next tick sends it again, since its chain epoch, the
				// one it may be taken in, can end before the next.
				d.cfg.Logger.Warn("epoch: reveal not sent, trying again", "epoch", pr.epoch, "err", err)
				pr.unjudged++
				keep = append(keep, pr)
			case now < pr.to:
				pr.retry, pr.unjudged = now+1, 0
				keep = append(keep, pr)
			default:
				lost = append(lost, lostReveal{pr.epoch, fmt.Errorf("epoch %d: %w: due in chain %s, the chain refused it in the last: %w",
					pr.epoch, ErrUnrevealed, pr.due(), err)})
			}
		}
	}
	d.mu.Lock()
	d.pending = append(keep, d.pending...)
	d.mu.Unlock()
	return sent, taken, lost
}

// due names the chain epochs a reveal is due in.
func (pr pendingReveal) due() string {
	if pr.from == pr.to {
		return fmt.Sprintf("epoch %d", pr.to)
	}
	return fmt.Sprintf("epochs %d to %d", pr.from, pr.to)
}
