package epoch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/vtrust"
)

// Config configures a Driver.
type Config struct {
	Chain chain.Chain
	// Store is the validator's ledger; nil takes the node's when the
	// driver runs as a node.Service.
	Store *ledger.Store
	Key   *keys.Hotkey
	// Champion is the champion before the first epoch the driver runs (the
	// previous epoch's winner); zero for none.
	Champion duel.Side
	// Poll is how often the chain head is read (default: a quarter of the
	// block time, at least 10 ms).
	Poll   time.Duration
	Logger *slog.Logger
	// OnEpoch, if set, sees every epoch's report (tests, status).
	OnEpoch func(Report)
}

// Report is what one epoch did.
type Report struct {
	Epoch  uint64 `json:"epoch"`
	Window Window `json:"window"`
	// Commitment is the checkpoint committed on-chain, nil when the
	// validator had no block yet.
	Commitment *chain.ValidatorCommitment `json:"commitment"`
	Output     vtrust.Output              `json:"output"`
	// Weights are the weights set (or committed), nil when the epoch has
	// no winner with a uid; Committed tells whether they were committed
	// for a later reveal.
	Weights   *chain.Weights `json:"weights"`
	Committed bool           `json:"committed"`
	// Revealed counts earlier commits revealed this epoch.
	Revealed int `json:"revealed"`
}

// Driver runs a validator's epochs: commitment, vTrust, weights.
type Driver struct {
	cfg     Config
	auditor *Auditor

	mu       sync.Mutex
	champion duel.Side
	pending  []pendingReveal
	last     *Report
}

// pendingReveal is a weight commit waiting for its reveal epoch.
type pendingReveal struct {
	epoch  uint64
	reveal chain.Reveal
}

// New checks cfg and returns a driver. With a nil Store it can only run as
// a node.Service.
func New(cfg Config) (*Driver, error) {
	if cfg.Chain == nil || cfg.Key == nil {
		return nil, errors.New("epoch: a chain and a validator key are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Driver{cfg: cfg, champion: cfg.Champion}
	if cfg.Store != nil {
		d.auditor = NewAuditor(cfg.Key.Public(), cfg.Store)
	}
	return d, nil
}

// Champion returns the champion after the last epoch run.
func (d *Driver) Champion() duel.Side {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.champion
}

// Last returns the last epoch's report, false before the first.
func (d *Driver) Last() (Report, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.last == nil {
		return Report{}, false
	}
	return *d.last, true
}

// Run implements node.Service: it drives epochs over the node's store
// until ctx ends.
func (d *Driver) Run(ctx context.Context, n *node.Node) error {
	if d.auditor == nil {
		d.cfg.Store = n.Store()
		d.auditor = NewAuditor(d.cfg.Key.Public(), d.cfg.Store)
	}
	return d.Loop(ctx)
}

// Loop waits for each epoch boundary of the chain and runs the epoch that
// begins there; it returns nil when ctx ends. An epoch that fails is
// logged and the loop goes on with the next one.
func (d *Driver) Loop(ctx context.Context) error {
	if d.auditor == nil {
		return errors.New("epoch: no store")
	}
	p, err := d.cfg.Chain.Params(ctx)
	if err != nil {
		return fmt.Errorf("epoch: read chain params: %w", err)
	}
	poll := d.cfg.Poll
	if poll <= 0 {
		poll = max(p.BlockTime/4, 10*time.Millisecond)
	}
	head, err := d.cfg.Chain.Head(ctx)
	if err != nil {
		return fmt.Errorf("epoch: read head: %w", err)
	}
	next := head.Number/p.Tempo + 1
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		// Peers' blocks are re-executed as they arrive, not all at the
		// epoch's end.
		if _, err := d.auditor.CatchUp(); err != nil {
			d.cfg.Logger.Warn("epoch: audit peer blocks", "err", err)
		}
		h, err := d.cfg.Chain.Head(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			d.cfg.Logger.Warn("epoch: read head", "err", err)
			continue
		}
		if h.Number < next*p.Tempo {
			continue
		}
		// Late by whole epochs: run the current one only.
		next = h.Number / p.Tempo
		if _, err := d.Step(ctx, next); err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("epoch failed", "epoch", next, "err", err)
		}
		next++
	}
}

// Step runs epoch k (k ≥ 1), which reads window WindowOf(k, tempo): it
// audits every peer block stored so far, commits the validator's latest
// checkpoint, reveals the weights committed RevealPeriod epochs ago,
// computes vTrust and sets (or commits) the winner-takes-all weights.
func (d *Driver) Step(ctx context.Context, k uint64) (Report, error) {
	if k == 0 {
		return Report{}, errors.New("epoch: epoch 0 reads nothing")
	}
	c, self := d.cfg.Chain, d.cfg.Key.Public()
	p, err := c.Params(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("epoch %d: read chain params: %w", k, err)
	}
	rep := Report{Epoch: k, Window: WindowOf(k, p.Tempo)}
	// 1. The commitment, before any weights: whoever reads the weights
	// can hold them to the ledger committed first.
	h, err := d.cfg.Store.Head(self)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
	case err != nil:
		return rep, fmt.Errorf("epoch %d: read own head: %w", k, err)
	default:
		vc := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
		// An unchanged checkpoint is not written again: it would spend
		// commitment space (and fees) to say nothing new.
		if !d.committed(ctx, vc) {
			if err := c.SetCommitment(ctx, d.cfg.Key, vc.Fields()); err != nil {
				return rep, fmt.Errorf("epoch %d: commit checkpoint at height %d: %w", k, vc.Height, err)
			}
		}
		rep.Commitment = &vc
	}

	// 2. vTrust over what the ledger holds.
	d.mu.Lock()
	champion := d.champion
	d.mu.Unlock()
	out, _, err := Compute(ctx, c, d.auditor, k, champion)
	if err != nil {
		return rep, fmt.Errorf("epoch %d: %w", k, err)
	}
	rep.Output = out

	// 3. Weights: reveal what is due, then set or commit this epoch's.
	if rep.Revealed, err = d.reveal(ctx, p, k); err != nil {
		return rep, fmt.Errorf("epoch %d: %w", k, err)
	}
	if len(out.Weights.UIDs) > 0 {
		w := chain.Weights{UIDs: out.Weights.UIDs, Values: out.Weights.Values, VersionKey: p.VersionKey}
		rep.Weights = &w
		if p.CommitReveal {
			salt, err := chain.NewSalt()
			if err != nil {
				return rep, fmt.Errorf("epoch %d: %w", k, err)
			}
			r := chain.Reveal{Weights: w, Salt: salt}
			if err := c.CommitWeights(ctx, d.cfg.Key, chain.CommitHash(self, p.Netuid, r)); err != nil {
				return rep, fmt.Errorf("epoch %d: commit weights: %w", k, err)
			}
			d.mu.Lock()
			d.pending = append(d.pending, pendingReveal{epoch: k + p.RevealPeriod, reveal: r})
			d.mu.Unlock()
			rep.Committed = true
		} else if err := c.SetWeights(ctx, d.cfg.Key, w); err != nil {
			return rep, fmt.Errorf("epoch %d: set weights: %w", k, err)
		}
	}
	d.auditor.Prune(rep.Window.To)
	d.mu.Lock()
	d.champion = out.Champion
	d.last = &rep
	d.mu.Unlock()
	if d.cfg.OnEpoch != nil {
		d.cfg.OnEpoch(rep)
	}
	return rep, nil
}

// reveal reveals the commits due in epoch k and drops those past due.
func (d *Driver) reveal(ctx context.Context, p chain.Params, k uint64) (int, error) {
	d.mu.Lock()
	pending := d.pending
	d.pending = nil
	d.mu.Unlock()
	n := 0
	var keep []pendingReveal
	var errs []error
	for _, pr := range pending {
		switch {
		case pr.epoch > k:
			keep = append(keep, pr)
		case pr.epoch == k:
			if err := d.cfg.Chain.RevealWeights(ctx, d.cfg.Key, pr.reveal); err != nil {
				errs = append(errs, fmt.Errorf("reveal weights committed for epoch %d: %w", pr.epoch, err))
				continue
			}
			n++
		}
	}
	d.mu.Lock()
	d.pending = append(keep, d.pending...)
	d.mu.Unlock()
	return n, errors.Join(errs...)
}

// committed reports whether vc is already the validator's commitment on
// the chain.
func (d *Driver) committed(ctx context.Context, vc chain.ValidatorCommitment) bool {
	cm, err := d.cfg.Chain.Commitment(ctx, d.cfg.Key.Public())
	if err != nil {
		return false
	}
	got, err := chain.ParseValidatorCommitment(cm.Fields)
	return err == nil && got == vc
}
