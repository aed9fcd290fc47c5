package epoch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// Loop waits for each epoch boundary of the chain and runs the epoch that
// begins there; it returns nil when ctx ends. An epoch that fails is
// logged and the loop goes on with the next one. While the chain cannot
// be read, the loop backs off (chainRead).
func (d *Driver) Loop(ctx context.Context) error {
	l, err := d.start(ctx)
	if err != nil {
		return err
	}
	wait := l.poll
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		wait = d.chainRead(ctx, d.tick(ctx, l), l.poll, wait, time.Now())
		t.Reset(wait)
	}
}

// maxChainBackoff bounds the wait between two ticks while the chain
// cannot be read: a chain back up is noticed within it, far within an
// epoch's settle.
const maxChainBackoff = 30 * time.Second

// chainRead takes a tick's chain error (nil when the chain answered) at
// now and returns the wait before the next tick: poll while the chain
// answers, doubled after each failure up to maxChainBackoff. A chain node
// that is down made the loop log "read head: connection refused" on every
// tick, eight times a second on a fast chain; now the first failure is
// logged, then one line a minute (ratelog), and the recovery.
func (d *Driver) chainRead(ctx context.Context, err error, poll, wait time.Duration, now time.Time) time.Duration {
	if ctx.Err() != nil {
		return wait
	}
	if err == nil {
		d.chainFails.OK(d.cfg.Logger, now, "epoch: chain readable again")
		return poll
	}
	d.cfg.Metrics.EpochChainError()
	next := max(poll, min(2*wait, maxChainBackoff))
	d.chainFails.Fail(d.cfg.Logger, now, "epoch: chain unreadable, backing off", "err", err, "retry_in", next.String())
	return next
}

// loop is where Loop stands: the chain's parameters as last read, the
// next epoch to run and, while that epoch waits for peers' blocks, the
// head at which it began to wait (0 when it does not).
type loop struct {
	p        chain.Params
	sched    chain.Schedule
	poll     time.Duration
	settle   uint64
	next     uint64
	waitFrom uint64
}

// start reads the chain's parameters and head and resumes (resume): the
// loop's first epoch and the champion it starts from.
func (d *Driver) start(ctx context.Context) (*loop, error) {
	if d.auditor == nil {
		return nil, errors.New("epoch: no store")
	}
	p, err := d.cfg.Chain.Params(ctx)
	if err != nil {
		return nil, fmt.Errorf("epoch: read chain params: %w", err)
	}
	l := &loop{p: p, sched: p.Schedule(), poll: d.cfg.Poll, settle: d.cfg.Settle}
	if l.poll <= 0 {
		l.poll = max(p.BlockTime/4, 10*time.Millisecond)
	}
	if l.settle == 0 {
		l.settle = max(1, p.Tempo/8)
	}
	if !l.sched.Valid() {
		return nil, fmt.Errorf("epoch: the chain's tempo is 0: it runs no epochs")
	}
	head, err := d.cfg.Chain.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("epoch: read head: %w", err)
	}
	if l.next, err = d.resume(ctx, l.sched.Of(head.Number)); err != nil {
		return nil, err
	}
	return l, nil
}

// tick is one turn of Loop: it audits the peer blocks that arrived, reads
// the head, reveals the commits due in the head's chain epoch and, when
// the next epoch is due and its window complete (or waited for long
// enough), runs it. It returns the error of a failed read of the chain's
// head or parameters, for Loop to back off; an epoch's own failures are
// logged here.
func (d *Driver) tick(ctx context.Context, l *loop) (chainErr error) {
	// Peers' blocks are re-executed as they arrive, not all at the
	// epoch's end.
	if _, err := d.auditor.CatchUp(); err != nil {
		d.cfg.Logger.Warn("epoch: audit peer blocks", "err", err)
	}
	h, err := d.cfg.Chain.Head(ctx)
	if err != nil {
		return fmt.Errorf("read head: %w", err)
	}
	// A failed read keeps the last schedule for this tick.
	chainErr = d.follow(ctx, l)
	// A commit is revealed in one chain epoch only: while the driver
	// waits for an epoch's window, or catches up on missed epochs one
	// per tick, the chain epoch in which one is due may end.
	d.revealDue(ctx, l.p, h.Number)
	settle := l.settle
	if h.Number < Boundary(l.next, l.sched)+settle || h.Number < settle {
		return chainErr
	}
	cur := l.sched.Of(h.Number - settle)
	if cur-l.next > maxCatchUp {
		d.cfg.Logger.Warn("epoch: too far behind, skipping epochs", "from", l.next, "to", cur-maxCatchUp-1)
		l.next, l.waitFrom = cur-maxCatchUp, 0
	}
	// Each epoch waits until the store holds its whole window, for at
	// most 2·settle blocks from when the driver first wanted it.
	if missing, err := d.missing(ctx, Boundary(l.next, l.sched)); err != nil || len(missing) > 0 {
		if l.waitFrom == 0 {
			l.waitFrom = h.Number
		}
		if h.Number < l.waitFrom+2*settle {
			return chainErr
		}
		d.cfg.Metrics.EpochIncomplete()
		if err != nil {
			d.cfg.Logger.Warn("epoch: computing without knowing whose blocks are missing", "epoch", l.next, "err", err)
		} else {
			d.cfg.Logger.Warn("epoch: computing with blocks missing", "epoch", l.next,
				"validators", len(missing), "missing", missingList(missing))
		}
	}
	l.waitFrom = 0
	// Late by whole epochs: each missed epoch still moves the
	// champion (its votes are in no other window), one per tick, but
	// only the current one commits and sets weights.
	if l.next < cur {
		if err := d.advance(ctx, l.next); err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("epoch failed", "epoch", l.next, "err", err)
		}
	} else if _, err := d.Step(ctx, l.next); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("epoch failed", "epoch", l.next, "err", err)
	}
	l.next++
	return chainErr
}

// follow reads the chain's parameters again: the reveals and the next
// boundary go by the schedule in force at the head. A chain that counts
// its epochs in storage moves it (subtensor since runtime 423: an epoch
// deferred by the per-block cap or triggered early by the subnet's owner,
// a tempo set), and any chain's tempo can change. A failed read keeps
// the last schedule, as does one that numbers no epochs.
func (d *Driver) follow(ctx context.Context, l *loop) error {
	p, err := d.cfg.Chain.Params(ctx)
	if err != nil {
		return fmt.Errorf("read chain params: %w", err)
	}
	if s := p.Schedule(); s.Valid() {
		l.p, l.sched = p, s
	}
	return nil
}

// missing returns the other validators on the chain the store holds no
// block of anchored at or after block number end, each with the anchor
// of its head: anchors never go back along a chain, so for every other
// validator the store holds every block of the window before end. A
// validator that appends nothing past the window (idle, offline) stays
// missing until the driver stops waiting; one the store holds a fork
// proof of from before end is not waited for. An error says the chain or
// the store could not be read to tell.
func (d *Driver) missing(ctx context.Context, end uint64) ([]missingChain, error) {
	st, err := d.cfg.Chain.At(ctx, end)
	if err != nil {
		return nil, fmt.Errorf("read the chain at block %d: %w", end, err)
	}
	vals, _, err := Participants(ctx, st)
	if err != nil {
		return nil, err
	}
	// An equivocator's records are not read (Equivocators): there is
	// nothing of it to wait for.
	forked, err := Equivocators(d.cfg.Store, end)
	if err != nil {
		return nil, err
	}
	self := d.cfg.Key.Public()
	var out []missingChain
	for _, v := range vals {
		if v.Hotkey == self || forked[v.Hotkey] {
			continue
		}
		h, err := d.cfg.Store.Head(v.Hotkey)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			out = append(out, missingChain{validator: v.Hotkey, none: true})
		case err != nil:
			return nil, fmt.Errorf("read the head of %s: %w", v.Hotkey, err)
		case h.Anchor.Number < end:
			out = append(out, missingChain{validator: v.Hotkey, anchor: h.Anchor.Number})
		}
	}
	// Compute audits what arrived since the tick's own catch-up.
	return out, nil
}

// missingChain is a validator whose blocks up to an epoch's end the store
// may not all hold: it holds none of it, or its head is anchored at
// anchor, before the end.
type missingChain struct {
	validator keys.PublicKey
	none      bool
	anchor    uint64
}

// maxMissingLogged bounds the validators a log line names.
const maxMissingLogged = 8

// missingList names the validators of ms for a log line: "5F...: no
// block; 5G...: head anchored at block 812", the first maxMissingLogged.
func missingList(ms []missingChain) string {
	var b strings.Builder
	for i, m := range ms {
		if i == maxMissingLogged {
			fmt.Fprintf(&b, "; and %d more", len(ms)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if m.none {
			fmt.Fprintf(&b, "%s: no block", m.validator)
		} else {
			fmt.Fprintf(&b, "%s: head anchored at block %d", m.validator, m.anchor)
		}
	}
	return b.String()
}

// maxCatchUp bounds the missed epochs a driver computes when it falls
// behind.
const maxCatchUp = 64

// advance computes missed epoch k and moves the champion, without the
// commitment or weights of a current epoch.
func (d *Driver) advance(ctx context.Context, k uint64) error {
	p, err := d.cfg.Chain.Params(ctx)
	if err != nil {
		return fmt.Errorf("epoch %d: read chain params: %w", k, err)
	}
	champion, err := d.startChampion(ctx, p, k)
	if err != nil {
		return fmt.Errorf("epoch %d: %w", k, err)
	}
	e, err := compute(ctx, d.cfg.Chain, d.auditor, k, champion, nil)
	if err != nil {
		return fmt.Errorf("epoch %d: %w", k, err)
	}
	d.logWinner(k, e.out)
	d.remember(p, k, e.at, e.out.Champion)
	d.auditor.Prune(pruneBefore(p, k))
	d.mu.Lock()
	d.champion = e.out.Champion
	d.mu.Unlock()
	d.save(k, e.out.Champion)
	return nil
}
