package validator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/internal/ratelog"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Errors of RunDuel.
var (
	// ErrCopy: the contender is a copy (spec/validator.md, "Copies").
	ErrCopy = errors.New("contender is a copy")
	// ErrNotChampion: the champion given is not the one in force.
	ErrNotChampion = errors.New("not the champion")
	// errChain marks a failed chain read: Run tries again later.
	errChain = errors.New("chain")
)

// Validator is the evaluation loop of one validator hotkey. Run loops over
// the contender queue; RunDuel runs one duel. Duels run one at a time (a
// second RunDuel waits for the first), each with its challenges in
// parallel. All methods are safe for concurrent use.
type Validator struct {
	cfg    Config
	pub    keys.PublicKey
	app    *ledger.Appender
	ownApp bool

	// duelMu is held for a whole duel: the champion and the ratio to beat
	// move only between duels.
	duelMu sync.Mutex
	// stateMu guards hist, pending, lastStart and hasLast.
	stateMu sync.Mutex
	hist    *History
	// pending is the unfinished duel found in the ledger, nil if none (or
	// once resumed or abandoned).
	pending *unfinished
	// lastStart is the start block of the last duel begun, recorded or
	// not: the next one starts at a later block, so no two duels of this
	// validator share an anchor (and so no counter is drawn twice).
	lastStart uint64
	hasLast   bool

	blockMu sync.Mutex
	// nextBlock is the height of the first block OnBlock has not seen.
	nextBlock uint64

	failing endpointWarnings
	// queueFails and duelFails rate-limit Run's warnings of a contender
	// queue it cannot read and of duels it could not run: a chain node
	// that is down fails every Poll.
	queueFails, duelFails ratelog.Failures
}

// New recovers the validator's state from its ledger (History and an
// unfinished duel, if any) and opens its appender.
func New(cfg Config) (*Validator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	v := &Validator{cfg: cfg, pub: cfg.Key.Public()}
	if v.hist, err = LoadHistory(cfg.Store, v.pub, cfg.Frontier); err != nil {
		return nil, fmt.Errorf("validator: recover history: %w", err)
	}
	if last, ok := v.hist.Last(); ok {
		v.lastStart, v.hasLast = last.Start.Number, true
	}
	if v.pending, err = findUnfinished(cfg.Store, v.pub, v.hist); err != nil {
		return nil, fmt.Errorf("validator: recover unfinished duel: %w", err)
	}
	if v.pending != nil {
		v.lastStart, v.hasLast = max(v.lastStart, v.pending.start.Number), true
	}
	if v.hist.Head != nil {
		v.nextBlock = v.hist.Head.Block.Height + 1
	}
	v.app = cfg.Appender
	if v.app == nil {
		opts := []ledger.AppenderOption{ledger.WithMaxWait(cfg.BlockInterval)}
		if cfg.BlockSize > 0 {
			opts = append(opts, ledger.WithMaxBatch(cfg.BlockSize))
		}
		if v.app, err = cfg.Store.NewAppender(cfg.Key, opts...); err != nil {
			return nil, fmt.Errorf("validator: %w", err)
		}
		v.ownApp = true
	}
	return v, nil
}

// Close closes the appender New opened, after what it holds is written.
// It does not close the store or the chain. Stop Run first.
func (v *Validator) Close() error {
	if v.ownApp {
		return v.app.Close()
	}
	return nil
}

// History returns a copy of the duel history: the results recorded and the
// frontier after them. Its Head is the head New recovered the history from,
// not moved since (the loop reads the store's head where it needs one, in
// startAnchor): read Config.Store for the current head.
func (v *Validator) History() History {
	v.stateMu.Lock()
	defer v.stateMu.Unlock()
	h := *v.hist
	h.Entries = append([]Entry(nil), h.Entries...)
	h.Adoptions = append([]Adoption(nil), h.Adoptions...)
	if h.Frontier != nil {
		f := *h.Frontier
		h.Frontier = &f
	}
	h.dueled, h.adopted = nil, nil
	return h
}

// Run duels contenders until ctx ends: it resumes the unfinished duel of
// the ledger if it still can, then repeatedly reads the contender queue and
// duels the next contender (nextPair), waiting Poll when there is none.
// It returns ctx's error, or the first error that stops the loop (the
// ledger failed, an env failed); failures of miners and of chain reads do
// not stop it, and are logged at most once a minute (ratelog) until they
// stop.
func (v *Validator) Run(ctx context.Context) error {
	log := v.cfg.Logger
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		q, err := Queue(ctx, v.cfg.Chain)
		if err != nil {
			if ctx.Err() == nil {
				v.queueFails.Fail(log, time.Now(), "validator: cannot read the contender queue; no duel until it can", "err", err)
			}
			if err := sleep(ctx, v.cfg.Poll); err != nil {
				return err
			}
			continue
		}
		v.queueFails.OK(log, time.Now(), "validator: contender queue read again")
		champion, contender, ok := v.next(q)
		if !ok {
			if err := sleep(ctx, v.cfg.Poll); err != nil {
				return err
			}
			continue
		}
		if _, err := v.RunDuel(ctx, champion, contender); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The chain moved between the queue read and the duel: the
			// pair is no longer a duel (the champion in force came back,
			// a side became a copy). An unfinished duel refused so is
			// abandoned, or every restart would pick it again and stop.
			switch {
			case errors.Is(err, ErrNotChampion) || errors.Is(err, ErrCopy):
				v.abandonPending(champion, contender)
			case !errors.Is(err, errChain):
				return err
			}
			v.duelFails.Fail(log, time.Now(), "validator: duel not run",
				"champion", champion.Hotkey.String(), "contender", contender.Hotkey.String(), "err", err)
			if err := sleep(ctx, v.cfg.Poll); err != nil {
				return err
			}
			continue
		}
		v.duelFails.OK(log, time.Now(), "validator: duels run again")
	}
}

// next picks the next duel: the unfinished one if both its miners still
// have the models they had, else nextPair.
func (v *Validator) next(q []chain.Contender) (champion, contender chain.Contender, ok bool) {
	v.stateMu.Lock()
	defer v.stateMu.Unlock()
	if p := v.pending; p != nil {
		ch, okc := find(q, p.champion)
		co, oko := find(q, p.contender)
		if okc && oko {
			return ch, co, true
		}
	}
	if w, ok := following(q, v.hist, v.cfg.Consensus); ok {
		c, ok := contenderFor(q, v.hist, w)
		if ok {
			own := "none"
			if f := v.hist.Frontier; f != nil {
				own = f.Champion.Hotkey.String()
			}
			v.cfg.Logger.Info("validator: dueling the consensus champion, which the ledger's champion can no longer become",
				"champion", w.Hotkey.String(), "ledger_champion", own, "contender", c.Hotkey.String())
		}
		return w, c, ok
	}
	return nextPair(q, v.hist)
}

// abandonPending drops the unfinished duel if it is the pair given.
func (v *Validator) abandonPending(champion, contender chain.Contender) {
	v.stateMu.Lock()
	defer v.stateMu.Unlock()
	if p := v.pending; p != nil && p.champion.Equal(Side(champion)) && p.contender.Equal(Side(contender)) {
		v.pending = nil
	}
}

// RunDuel duels contender against champion and returns the duel's result
// once it is durable in the ledger. champion must be the champion in force
// (or, when the ledger has none or its champion no longer has its model
// committed, any miner; or the consensus champion the loop must follow:
// a reign starts, spec/validator.md). A copy is
// refused with ErrCopy. If the ledger holds an unfinished duel of the same
// two models, it is resumed; any other unfinished duel is abandoned.
//
// Miners that fail (time out, send garbage, hang) lose the challenges they
// fail; RunDuel returns an error only when ctx ends (the duel can then be
// resumed), the ledger fails, or an env fails.
func (v *Validator) RunDuel(ctx context.Context, champion, contender chain.Contender) (duel.Result, error) {
	v.duelMu.Lock()
	defer v.duelMu.Unlock()
	if why := isCopy(champion, contender); why != "" {
		return duel.Result{}, fmt.Errorf("duel %s against %s: %w: %s", contender.Hotkey.Short(), champion.Hotkey.Short(), ErrCopy, why)
	}
	frontier, src, resumeOnly, err := v.frontierFor(ctx, champion, contender)
	if err != nil {
		return duel.Result{}, err
	}
	r, err := v.newRun(ctx, champion, contender, frontier, src, resumeOnly)
	if err != nil {
		return duel.Result{}, err
	}
	return r.run(ctx)
}

// frontierFor returns the frontier a duel of champion runs under: the
// history's if champion is its champion, a new reign if the history has
// none, its champion's model is no longer committed, or champion is the
// consensus champion the loop must follow (consensusChampion). A reign of
// the consensus champion adopts the frontier of the duel that crowned it,
// src, when the consensus names one (crowning). The unfinished duel
// of a new reign resumes as it started, even if the history's champion
// has committed its model again since: its outcome must not depend on
// when the validator stopped (spec/validator.md, "Resuming"); resumeOnly
// then says that the pair may only resume, not start afresh.
func (v *Validator) frontierFor(ctx context.Context, champion, contender chain.Contender) (_ *duel.Frontier, src *crowned, resumeOnly bool, _ error) {
	v.stateMu.Lock()
	f, p := v.hist.Frontier, v.pending
	w, follow := consensusChampion(v.hist, v.cfg.Consensus)
	v.stateMu.Unlock()
	if follow && w.Equal(Side(champion)) {
		c, ok, err := crowning(v.cfg.Store, v.cfg.Consensus, w)
		if err != nil || !ok {
			return nil, nil, false, err // no source: the reign starts at the floor
		}
		return nil, &c, false, nil
	}
	if f == nil || f.Champion.Equal(Side(champion)) {
		return f, nil, false, nil
	}
	q, err := Queue(ctx, v.cfg.Chain)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%w: %w", errChain, err)
	}
	if _, still := find(q, f.Champion); still {
		if p != nil && p.champion.Equal(Side(champion)) && p.contender.Equal(Side(contender)) {
			return nil, nil, true, nil
		}
		return nil, nil, false, fmt.Errorf("duel against %s: %w: the champion is %s", champion.Hotkey.Short(), ErrNotChampion, f.Champion.Hotkey.Short())
	}
	return nil, nil, false, nil
}

// anchor waits for a chain head after the last duel's start and returns
// it.
func (v *Validator) anchor(ctx context.Context) (record.Anchor, error) {
	for {
		b, err := v.cfg.Chain.Head(ctx)
		if err == nil {
			v.stateMu.Lock()
			fresh := !v.hasLast || b.Number > v.lastStart
			if fresh {
				v.lastStart, v.hasLast = b.Number, true
			}
			v.stateMu.Unlock()
			if fresh {
				return record.Anchor{Number: b.Number, Hash: record.Hash(b.Hash)}, nil
			}
		}
		if err := sleep(ctx, min(v.cfg.Poll, 100*time.Millisecond)); err != nil {
			return record.Anchor{}, err
		}
	}
}

// notify calls OnBlock once per block, in height order. Receipts reach it
// from several goroutines in any order; a block passed over (its receipt
// comes later, or it holds none of the loop's records) is read back from
// the store, where it is durable since the later block is.
func (v *Validator) notify(rc ledger.Receipt) {
	if v.cfg.OnBlock == nil {
		return
	}
	v.blockMu.Lock()
	defer v.blockMu.Unlock()
	if rc.Block.Height < v.nextBlock {
		return
	}
	// The first receipt to arrive need not be of the first new block: blocks are
	// durable in height order, so every lower one can be read back.
	for h := v.nextBlock; h < rc.Block.Height; h++ {
		if b, err := v.cfg.Store.BlockAt(v.pub, h); err == nil {
			v.cfg.OnBlock(ledger.Receipt{Block: b.Ref(), Checkpoint: b.Checkpoint})
		}
	}
	v.nextBlock = rc.Block.Height + 1
	v.cfg.OnBlock(rc)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
