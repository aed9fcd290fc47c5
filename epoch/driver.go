package epoch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/internal/ratelog"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/validator"
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
	Poll time.Duration
	// Settle is how many chain blocks past an epoch's boundary the driver
	// waits before it runs the epoch (default tempo/8, at least 1), so
	// that peers' blocks anchored just before the boundary have reached
	// the store.
	Settle uint64
	// StateFile, if set, keeps the last epoch computed and its champion
	// across restarts (a node's driver keeps it in DataDir/epoch.json).
	StateFile string
	Logger    *slog.Logger
	// Metrics, if set, counts the epochs, commitments, weights and chain
	// errors (ledger_epoch*); nil takes the node's when the driver runs as
	// a node.Service.
	Metrics *metrics.Metrics
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
	// Equivocators are the validators left out of the epoch for a fork
	// (Equivocators), in byte order.
	Equivocators []keys.PublicKey `json:"equivocators,omitempty"`
	// Weights are the weights set (or committed), nil when the epoch has
	// no winner with a uid; Committed tells whether they were committed
	// for a later reveal.
	Weights   *chain.Weights `json:"weights"`
	Committed bool           `json:"committed"`
	// Revealed counts earlier epochs' commits revealed since the last
	// report: by this epoch, or by the loop on its way to it.
	Revealed int `json:"revealed"`
	// Unrevealed are the earlier epochs whose commits were dropped
	// unrevealed since the last report (ErrUnrevealed): their reveal
	// epoch ended before the node reached it, or the chain refused the
	// reveal there. Each is logged as that epoch's failure.
	Unrevealed []uint64 `json:"unrevealed,omitempty"`
}

// Driver runs a validator's epochs: commitment, vTrust, weights.
type Driver struct {
	cfg     Config
	auditor *Auditor

	mu       sync.Mutex
	champion duel.Side
	pending  []pendingReveal
	// revealed and unrevealed are the reveals made and the commits lost
	// since the last report (Report).
	revealed   int
	unrevealed []uint64
	// saved is the state file's epoch and champion, nil before the first
	// epoch saved or resumed from: persist writes the pending reveals
	// beside them.
	saved *state
	last  *Report
	// winners are recent epochs' winners as the driver computed them, and
	// read what they read of the chain at their boundaries: the champion
	// override (override.go) compares and computes again with them.
	winners map[uint64]duel.Side
	read    map[uint64]participants
	// chainFails rate-limits the loop's warnings of an unreadable chain.
	chainFails ratelog.Failures
	// consensus is the last epoch computed, nil before the first: what the
	// duel loop follows (consensus.go).
	consensus *consensusView
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
	d := &Driver{cfg: cfg, champion: cfg.Champion, winners: map[uint64]duel.Side{}, read: map[uint64]participants{}}
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
// until ctx ends. On a validator's node it also links every outcome it
// reaches from the validator's own chain, through the node's appender, and
// has the node gossip those blocks.
func (d *Driver) Run(ctx context.Context, n *node.Node) error {
	if d.auditor == nil {
		d.cfg.Store = n.Store()
		d.auditor = NewAuditor(d.cfg.Key.Public(), d.cfg.Store)
	}
	if d.cfg.StateFile == "" {
		d.cfg.StateFile = filepath.Join(n.DataDir(), StateFile)
	}
	if d.cfg.Metrics == nil {
		d.cfg.Metrics = n.Metrics()
	}
	if app := n.Appender(); app != nil {
		if err := d.auditor.Record(d.recorder(ctx, app, n.Announce)); err != nil {
			return fmt.Errorf("epoch: %w", err)
		}
	}
	return d.Loop(ctx)
}

// recorder appends outcomes as decision records of a block anchored at
// the chain's head, then calls published.
func (d *Driver) recorder(ctx context.Context, app *ledger.Appender, published func()) Recorder {
	return func(os []vtrust.Outcome) error {
		head, err := d.cfg.Chain.Head(ctx)
		if err != nil {
			return fmt.Errorf("read chain head: %w", err)
		}
		ds := make([][]byte, len(os))
		for i, o := range os {
			if ds[i], err = codec.Marshal(o); err != nil {
				return fmt.Errorf("encode outcome: %w", err)
			}
		}
		if _, err := app.Append(ctx, record.Anchor{Number: head.Number, Hash: record.Hash(head.Hash)}, nil, ds); err != nil {
			return err
		}
		published()
		return nil
	}
}

// startChampion is the champion epoch k starts from: the last epoch's
// winner, or when there is none the first champion, where every
// validator's duel loop starts its reign (spec/vtrust.md, "champion");
// overridden by the chain's weights when a majority of stake gives
// another (override). The chain is read as of the epoch's first block,
// as every validator reads it.
func (d *Driver) startChampion(ctx context.Context, p chain.Params, k uint64) (duel.Side, error) {
	d.mu.Lock()
	champion := d.champion
	d.mu.Unlock()
	at := Boundary(k, p.Schedule())
	st, err := d.cfg.Chain.At(ctx, at)
	if err != nil {
		return champion, fmt.Errorf("read the chain at block %d, where epoch %d begins: %w", at, k, err)
	}
	if m, ok, err := ChainMajority(ctx, st); err == nil && ok {
		c, err := d.override(ctx, p, k, m, champion)
		switch {
		case err != nil:
			d.cfg.Logger.Warn("epoch: champion override not applied", "epoch", k, "err", err)
		case !c.Equal(champion):
			d.cfg.Logger.Info("epoch: starting from the champion the weights of a majority of stake give",
				"epoch", k, "champion", c.Hotkey.String(), "had", champion.Hotkey.String())
		}
		if err == nil {
			return c, nil
		}
	}
	if champion.Hotkey != (keys.PublicKey{}) {
		return champion, nil
	}
	q, err := validator.Queue(ctx, st)
	if err != nil {
		return champion, err
	}
	if first, ok := validator.FirstChampion(q); ok {
		champion = validator.Side(first)
	}
	return champion, nil
}

// Step runs epoch k (k ≥ 1), which reads window WindowOf(k, schedule): it
// reveals the weight commits due in the chain's current epoch, commits
// the validator's latest checkpoint, audits every peer block stored so
// far, computes vTrust and sets (or commits) the winner-takes-all
// weights. An epoch computed moves the champion even when a chain write
// fails (the error is returned); without the commitment no weights are
// written.
func (d *Driver) Step(ctx context.Context, k uint64) (Report, error) {
	rep, err := d.step(ctx, k)
	result := metrics.EpochNoWinner
	switch {
	case err != nil:
		result = metrics.EpochFailed
	case rep.Weights != nil:
		result = metrics.EpochWinner
	}
	d.cfg.Metrics.EpochDone(k, result)
	return rep, err
}

// step is Step, but for the metrics.
func (d *Driver) step(ctx context.Context, k uint64) (Report, error) {
	if k == 0 {
		return Report{}, errors.New("epoch: epoch 0 reads nothing")
	}
	c := d.cfg.Chain
	p, err := c.Params(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("epoch %d: read chain params: %w", k, err)
	}
	rep := Report{Epoch: k, Window: WindowOf(k, p.Schedule())}
	// The reveals due in the chain's current epoch come first: the chain
	// takes each in one chain epoch only, and its weights were computed,
	// and committed after their epoch's commitment, epochs ago. Nothing
	// of this epoch, its commitment or its computation, may keep them
	// back.
	if head, err := c.Head(ctx); err != nil {
		d.cfg.Logger.Warn("epoch: no reveal: read chain head", "epoch", k, "err", err)
	} else {
		d.revealDue(ctx, p, head.Number)
	}
	d.mu.Lock()
	rep.Revealed, rep.Unrevealed = d.revealed, d.unrevealed
	d.revealed, d.unrevealed = 0, nil
	d.mu.Unlock()

	// The commitment, before any weights: whoever reads the weights
	// can hold them to the ledger committed first. Without it the epoch
	// writes no weights, but is still computed: the champion moves with
	// the ledgers, not with this node's writes.
	commitErr := d.commit(ctx, k, &rep)

	// vTrust over what the ledger holds.
	champion, err := d.startChampion(ctx, p, k)
	if err != nil {
		return rep, fmt.Errorf("epoch %d: %w", k, err)
	}
	e, err := compute(ctx, c, d.auditor, k, champion, nil)
	if err != nil {
		return rep, fmt.Errorf("epoch %d: %w", k, err)
	}
	out := e.out
	rep.Output, rep.Equivocators = out, e.equivocators
	d.logWinner(k, out)
	// The champion moves with the ledgers, whether or not this node's
	// weight write below goes through: kept back, it would start every
	// later epoch from another champion than its peers'.
	d.remember(p, k, e.at, out.Champion)
	d.auditor.Prune(pruneBefore(p, k))
	d.mu.Lock()
	d.champion = out.Champion
	d.consensus = &consensusView{epoch: k, schedule: p.Schedule(), out: out, crowning: e.crowning}
	d.mu.Unlock()

	// This epoch's weights, set or committed.
	err = commitErr
	if err == nil {
		if err = d.writeWeights(ctx, p, k, out.Weights, out.Champion.Hotkey, &rep); err != nil {
			err = fmt.Errorf("epoch %d: %w", k, err)
		}
	}
	d.save(k, out.Champion)
	if err != nil {
		return rep, err
	}
	d.mu.Lock()
	d.last = &rep
	d.mu.Unlock()
	if d.cfg.OnEpoch != nil {
		d.cfg.OnEpoch(rep)
	}
	return rep, nil
}

// commit writes the validator's latest checkpoint as its commitment,
// unless the chain holds it already, and sets rep.Commitment. A validator
// with no block yet commits nothing.
func (d *Driver) commit(ctx context.Context, k uint64, rep *Report) error {
	h, err := d.cfg.Store.Head(d.cfg.Key.Public())
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("epoch %d: read own head: %w", k, err)
	}
	vc := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
	// An unchanged checkpoint is not written again: it would spend
	// commitment space (and fees) to say nothing new.
	if d.committed(ctx, vc) {
		d.cfg.Logger.Debug("epoch: checkpoint already committed on-chain", "epoch", k, "height", vc.Height)
	} else {
		if err := d.cfg.Chain.SetCommitment(ctx, d.cfg.Key, vc.Fields()); err != nil {
			return fmt.Errorf("epoch %d: commit checkpoint at height %d: %w", k, vc.Height, err)
		}
		d.cfg.Metrics.EpochCommitted()
		d.cfg.Logger.Info("epoch: checkpoint committed on-chain", "epoch", k, "height", vc.Height, "transcripts", vc.Size)
	}
	rep.Commitment = &vc
	return nil
}

// writeWeights sets ws, or commits them for a later reveal, padded to the
// subnet's min_allowed_weights (chain.PadWeights), and fills in rep's
// Weights (the row written) and Committed. Weights naming no uid write
// nothing.
func (d *Driver) writeWeights(ctx context.Context, p chain.Params, k uint64, ws vtrust.Weights, winner keys.PublicKey, rep *Report) error {
	if len(ws.UIDs) == 0 {
		return nil
	}
	m, err := d.cfg.Chain.Metagraph(ctx)
	if err != nil {
		return fmt.Errorf("read the metagraph before writing weights: %w", err)
	}
	if err := stillHolds(m, ws, winner); err != nil {
		return err
	}
	// A subnet whose min_allowed_weights is above 1 refuses the winner's
	// row alone: zero-valued uids make up the length and take nothing.
	w := chain.PadWeights(chain.Weights{UIDs: ws.UIDs, Values: ws.Values, VersionKey: p.VersionKey}, p.MinAllowedWeights, len(m.Neurons))
	rep.Weights = &w
	if !p.CommitReveal {
		if err := d.cfg.Chain.SetWeights(ctx, d.cfg.Key, w); err != nil {
			return fmt.Errorf("set weights: %w", err)
		}
		d.cfg.Metrics.EpochWeights(metrics.WeightsSet)
		d.cfg.Logger.Info("epoch: weights set", "epoch", k, "uid", ws.UIDs[0], "winner", winner.String())
		return nil
	}
	salt, err := chain.NewSalt()
	if err != nil {
		return err
	}
	if err := d.commitWeights(ctx, p, k, chain.Reveal{Weights: w, Salt: salt}); err != nil {
		return err
	}
	d.cfg.Metrics.EpochWeights(metrics.WeightsCommitted)
	d.cfg.Logger.Info("epoch: weights committed, to be revealed", "epoch", k, "uid", ws.UIDs[0], "winner", winner.String())
	rep.Committed = true
	return nil
}

// stillHolds checks, in m (the chain's head), that the uid the weights
// give all to still belongs to the winner. The uid was read at the epoch's
// first block; if the winner was pruned since and its uid went to a new
// registration, weights set now would reward the newcomer: Yuma masks
// only rows set before a registration (spec/epoch.md, "Order of writes").
func stillHolds(m *chain.Metagraph, ws vtrust.Weights, winner keys.PublicKey) error {
	for _, uid := range ws.UIDs {
		holder, ok := keys.PublicKey{}, false
		for _, n := range m.Neurons {
			if n.UID == uid {
				holder, ok = n.Hotkey, true
				break
			}
		}
		if !ok || holder != winner {
			return fmt.Errorf("no weights written: uid %d, the winner %s's at the epoch's first block, is %s at block %d", uid, winner, holderName(holder, ok), m.Block)
		}
	}
	return nil
}

func holderName(k keys.PublicKey, ok bool) string {
	if !ok {
		return "no neuron's"
	}
	return k.String() + "'s"
}

// resume returns the first epoch to compute, given the current one, and
// sets the champion to start from: the state file's, if the driver has
// one (it goes on from the epoch after its last, and a state file past
// the current epoch is refused); else, when the chain
// has validators' weights, the winner they give (from the current epoch
// on: what came before is the chain's consensus); else the first
// champion, from epoch 1 (a new network), at most maxCatchUp epochs back.
// A champion given in Config wins over the chain's.
func (d *Driver) resume(ctx context.Context, current uint64) (uint64, error) {
	if d.cfg.StateFile != "" {
		st, ok, err := loadState(d.cfg.StateFile)
		if err != nil {
			return 0, err
		}
		if ok {
			// The chain never goes back: a state past its head is another
			// network's, or a reset devnet's. Going on from it would wait
			// for an epoch the chain reaches only much later, silently.
			if st.Epoch > current {
				return 0, fmt.Errorf("epoch state %s: epoch %d computed, but the chain is in epoch %d (another chain, or one reset?): remove it to start again from the chain's weights",
					d.cfg.StateFile, st.Epoch, current)
			}
			d.mu.Lock()
			d.champion = st.Champion
			d.pending = append(loadReveals(st.Reveals), d.pending...)
			d.saved = &state{Epoch: st.Epoch, Champion: st.Champion}
			d.mu.Unlock()
			d.cfg.Logger.Info("epoch: resuming", "after", st.Epoch, "champion", st.Champion.Hotkey.String(), "reveals", len(st.Reveals))
			return st.Epoch + 1, nil
		}
	}
	d.mu.Lock()
	known := d.champion.Hotkey != (keys.PublicKey{})
	d.mu.Unlock()
	if known {
		return current + 1, nil
	}
	s, ok, err := ChainWinner(ctx, d.cfg.Chain)
	if err != nil {
		return 0, fmt.Errorf("epoch: read the chain's winner: %w", err)
	}
	if ok {
		d.mu.Lock()
		d.champion = s
		d.mu.Unlock()
		d.cfg.Logger.Info("epoch: champion taken from the chain's weights", "champion", s.Hotkey.String())
		return current + 1, nil
	}
	return max(1, current-min(current, maxCatchUp)), nil
}

// save records the champion after epoch k, and the commits still to
// reveal, in the state file.
func (d *Driver) save(k uint64, champion duel.Side) {
	d.mu.Lock()
	d.saved = &state{Epoch: k, Champion: champion}
	d.mu.Unlock()
	d.persist()
}

// persist writes the state file: the epoch and champion last saved, and
// the commits still to reveal now.
func (d *Driver) persist() {
	if d.cfg.StateFile == "" {
		return
	}
	d.mu.Lock()
	if d.saved == nil {
		d.mu.Unlock()
		return
	}
	st := *d.saved
	st.Reveals = saveReveals(d.pending)
	d.mu.Unlock()
	if err := saveState(d.cfg.StateFile, st); err != nil {
		d.cfg.Logger.Error("epoch: save state", "err", err)
	}
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
