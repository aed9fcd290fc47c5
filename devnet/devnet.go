package devnet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/epoch"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p"
	"github.com/affine-ledger/ledger/validator"
)

// ValidatorDir is validator k's node data directory under dir.
func ValidatorDir(dir string, k int) string { return filepath.Join(dir, fmt.Sprintf("v%d", k)) }

// network is one running devnet.
type network struct {
	cfg    Config
	start  time.Time
	chain  *local.Chain
	miners []*Miner
	keys   []*keys.Hotkey
	nodes  []*node.Node
	// quiesce stops the validators' loops and epoch drivers, and only
	// them: the nodes go on replicating until the stores agree.
	quiesce chan struct{}

	mu         sync.Mutex
	drivers    []*epoch.Driver
	validators []*validator.Validator
	decided    map[int][]validator.Progress
	crowned    bool
}

// Run starts the devnet in cfg.Dir, which must be empty or absent, runs it
// until a champion has been crowned and every validator has set weights
// (or cfg.Duration has passed, or ctx ends), then stops the validators,
// lets every store catch up with every chain, closes the nodes, verifies
// every store with re-execution and returns the summary (also written to
// Dir/summary.json). The error is for a devnet that could not run; a goal
// not reached or a store that does not verify is in the summary (Goal,
// Verified).
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := emptyDir(cfg.Dir); err != nil {
		return nil, err
	}
	d := &network{cfg: cfg, start: time.Now(), quiesce: make(chan struct{}), decided: map[int][]validator.Progress{}}
	defer d.close()
	if err := d.startChain(); err != nil {
		return nil, err
	}
	if d.miners, err = startMiners(cfg.Miners); err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	if err := commit(ctx, d.chain, d.miners); err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	if err := d.startNodes(); err != nil {
		return nil, err
	}
	url := ""
	if a := d.nodes[0].StatusAddr(); a != "" {
		url = "http://" + a + "/"
	}
	d.emit(Event{Kind: KindStarted, URL: url, Text: fmt.Sprintf("%d validators, %d miners, chain block time %s, tempo %d", cfg.Validators, cfg.Miners, cfg.BlockTime, cfg.Tempo)})

	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	reached := d.waitGoal(runCtx)
	cancel()
	interrupted := !reached && ctx.Err() != nil
	why := "time is up"
	switch {
	case reached:
		why = "goal reached"
	case interrupted:
		why = "interrupted: stopping the network and auditing what ran"
	}
	d.emit(Event{Kind: KindStopping, Text: why})
	close(d.quiesce)

	// Stopped early, the network is still quiesced and audited, as at
	// the end of its time: ctx has ended, so the steps after run on a
	// context without its end, each under its own bound.
	after := context.WithoutCancel(ctx)
	sum := &Summary{Dir: cfg.Dir, Goal: reached, Interrupted: interrupted}
	if err := d.converge(after, 20*time.Second); err != nil {
		sum.Problems = append(sum.Problems, err.Error())
	}
	if err := d.collect(after, sum); err != nil {
		return nil, err
	}
	if err := d.closeNodes(); err != nil {
		return nil, fmt.Errorf("devnet: stop nodes: %w", err)
	}
	d.verifyStores(sum)
	sum.Seconds = time.Since(d.start).Seconds()
	if err := sum.write(filepath.Join(cfg.Dir, "summary.json")); err != nil {
		return nil, err
	}
	return sum, nil
}

func emptyDir(dir string) error {
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return fmt.Errorf("devnet: %w", err)
	}
	if len(es) > 0 {
		return fmt.Errorf("devnet: %s is not empty (it holds a previous devnet?): remove it or give another --dir", dir)
	}
	return nil
}

// startChain starts the local chain with the validators and miners
// registered at genesis: validators with falling stakes, none holding
// half of it.
func (d *network) startChain() error {
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime, g.CommitReveal = "devnet "+d.start.UTC().Format(time.RFC3339Nano), d.cfg.Tempo, local.Duration(d.cfg.BlockTime), false
	// Epochs fall where subtensor's would for the subnet, as on the
	// network the nodes are built for.
	g.SubtensorEpochs = true
	g.Neurons = nil
	for i := range d.cfg.Validators {
		k, err := devKey("validator", i)
		if err != nil {
			return err
		}
		d.keys = append(d.keys, k)
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: uint64(1000 - 50*i), Validator: true})
	}
	for i := range d.cfg.Miners {
		k, err := devKey("miner", i)
		if err != nil {
			return err
		}
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public()})
	}
	c, err := local.New(local.Options{Dir: filepath.Join(d.cfg.Dir, "chain"), Genesis: &g})
	if err != nil {
		return fmt.Errorf("devnet: start the local chain: %w", err)
	}
	d.chain = c
	return nil
}

// stoppable runs a service until the node stops it or the devnet
// quiesces.
type stoppable struct {
	svc  node.Service
	stop <-chan struct{}
}

func (s stoppable) Run(ctx context.Context, n *node.Node) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return s.svc.Run(ctx, n)
}

// delayed runs svc after a delay (none if the node stops first).
type delayed struct {
	svc   node.Service
	delay time.Duration
}

func (d delayed) Run(ctx context.Context, n *node.Node) error {
	t := time.NewTimer(d.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return d.svc.Run(ctx, n)
	case <-ctx.Done():
		return nil
	}
}

// startNodes starts the validators' nodes one by one, each dialing those
// before it.
func (d *network) startNodes() error {
	var pubs []keys.PublicKey
	for _, k := range d.keys {
		pubs = append(pubs, k.Public())
	}
	d.drivers = make([]*epoch.Driver, len(d.keys))
	d.validators = make([]*validator.Validator, len(d.keys))
	// The nodes gossip on their chain's subnet, as `ledger node --chain`
	// does: a node started by hand against this chain joins them.
	params, err := d.chain.Params(context.Background())
	if err != nil {
		return fmt.Errorf("devnet: chain params: %w", err)
	}
	genesis, err := d.chain.BlockHash(context.Background(), 0)
	if err != nil {
		return fmt.Errorf("devnet: genesis hash: %w", err)
	}
	var peers []peer.AddrInfo
	for i, k := range d.keys {
		dir := ValidatorDir(d.cfg.Dir, i)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("devnet: %w", err)
		}
		if err := keys.WriteKeyFile(filepath.Join(dir, "hotkey.json"), k, false); err != nil {
			return fmt.Errorf("devnet: %w", err)
		}
		log := d.cfg.Logger.With("validator", i)
		drv, err := epoch.New(epoch.Config{Chain: d.chain, Key: k, Logger: log, Poll: d.cfg.BlockTime / 2,
			OnEpoch: func(r epoch.Report) { d.onEpoch(i, r) }})
		if err != nil {
			return err
		}
		d.drivers[i] = drv
		vs := validator.Service{
			Config: validator.Config{Chain: d.chain, Rule: d.cfg.Rule, Poll: d.cfg.BlockTime, Consensus: drv,
				Progress: func(p validator.Progress) { d.onDuel(i, p) }},
			Started: func(v *validator.Validator) {
				d.mu.Lock()
				d.validators[i] = v
				d.mu.Unlock()
			},
		}
		cfg := node.Config{
			DataDir: dir, Key: k, NetUID: params.Netuid, Genesis: record.Hash(genesis), Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
			Peers: append([]peer.AddrInfo(nil), peers...), Validators: pubs, Logger: log,
			Network:  p2p.Config{Heartbeat: 200 * time.Millisecond, ReconnectInterval: 500 * time.Millisecond, StatusInterval: 2 * time.Second},
			Services: []node.Service{stoppable{delayed{vs, time.Duration(i) * d.cfg.Stagger}, d.quiesce}, stoppable{drv, d.quiesce}},
		}
		if i == 0 && d.cfg.Explorer != "" {
			cfg.StatusAddr = d.cfg.Explorer
			cfg.Handler = func(n *node.Node) (http.Handler, error) {
				return explorer.Handler(n.Store(), explorer.Options{Chain: d.chain, Metrics: n.Metrics(), Logger: log})
			}
		}
		n, err := node.Start(cfg)
		if err != nil {
			return fmt.Errorf("devnet: start validator %d: %w", i, err)
		}
		d.nodes = append(d.nodes, n)
		peers = append(peers, n.AddrInfo())
	}
	return nil
}

func (d *network) emit(e Event) {
	if d.cfg.Events != nil {
		e.Elapsed = time.Since(d.start)
		d.cfg.Events(e)
	}
}

func (d *network) onDuel(i int, p validator.Progress) {
	if p.Stage == validator.StageDecided {
		d.mu.Lock()
		d.decided[i] = append(d.decided[i], p)
		d.mu.Unlock()
	}
	d.emit(Event{Kind: KindDuel, Validator: i, Duel: &p})
}

func (d *network) onEpoch(i int, r epoch.Report) {
	if len(r.Output.Changes) > 0 {
		d.mu.Lock()
		d.crowned = true
		d.mu.Unlock()
	}
	d.emit(Event{Kind: KindEpoch, Validator: i, Epoch: &r})
}

// goal reports whether a champion has been crowned (a contender
// dethroned one in some epoch's consensus) and every validator's last
// epoch set weights to the same champion.
func (d *network) goal() bool {
	d.mu.Lock()
	crowned := d.crowned
	d.mu.Unlock()
	if !crowned {
		return false
	}
	var champ keys.PublicKey
	for i, drv := range d.drivers {
		r, ok := drv.Last()
		if !ok || r.Weights == nil {
			return false
		}
		if i == 0 {
			champ = r.Output.Champion.Hotkey
		} else if r.Output.Champion.Hotkey != champ {
			return false
		}
	}
	return true
}

// waitGoal ticks until the goal is reached or ctx ends.
func (d *network) waitGoal(ctx context.Context) bool {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return d.goal()
		case <-t.C:
		}
		d.emit(Event{Kind: KindTick, Nodes: d.states()})
		if d.goal() {
			return true
		}
	}
}

func (d *network) states() []NodeState {
	out := make([]NodeState, len(d.nodes))
	for i, n := range d.nodes {
		st, err := n.Status()
		if err != nil {
			continue
		}
		s := NodeState{Peers: len(st.Peers), Chains: len(st.Heads)}
		for _, h := range st.Heads {
			s.Blocks += h.Height + 1
			if h.Validator == d.keys[i].Public() {
				s.OwnTranscripts = h.Transcripts
			}
		}
		out[i] = s
	}
	return out
}

// converge waits, once the validators have stopped, until every node
// holds every validator's chain up to that validator's own head.
func (d *network) converge(ctx context.Context, limit time.Duration) error {
	// The services stop asynchronously: wait for heads to stand still.
	heads := func() []uint64 {
		out := make([]uint64, len(d.nodes))
		for i, n := range d.nodes {
			if h, err := n.Store().Head(d.keys[i].Public()); err == nil {
				out[i] = h.Block.Height + 1
			}
		}
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	prev := heads()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("validators still appending after %s", limit)
		case <-time.After(300 * time.Millisecond):
		}
		cur := heads()
		if fmt.Sprint(cur) == fmt.Sprint(prev) {
			break
		}
		prev = cur
	}
	for i, n := range d.nodes {
		for j, k := range d.keys {
			if prev[j] == 0 || i == j {
				continue
			}
			if err := n.WaitHead(ctx, k.Public(), prev[j]-1); err != nil {
				return fmt.Errorf("validator %d's store lacks validator %d's chain up to height %d: %w", i, j, prev[j]-1, err)
			}
		}
	}
	return nil
}

func (d *network) closeNodes() error {
	var errs []error
	for _, n := range d.nodes {
		errs = append(errs, n.Close())
	}
	d.nodes = nil
	return errors.Join(errs...)
}

func (d *network) close() {
	d.closeNodes()
	stopMiners(d.miners)
	if d.chain != nil {
		d.chain.Close()
	}
}
