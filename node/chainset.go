package node

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p"
)

// DefaultChainSetEvery is how often a ChainSet reads the metagraph.
const DefaultChainSetEvery = 30 * time.Second

// ChainSet keeps a node's validator set to the hotkeys registered on its
// chain's subnet, as a Service. Without it a node accepts every validly
// signed chain, and anyone with a fresh key can fill its disk; with it, a
// chain costs a registration. Every registered hotkey counts, not only
// those with a validator permit: a new validator earns its permit at an
// epoch, and its chain from before must still replicate. A record of a
// hotkey not (yet) in the set is ignored, never held against the peer
// that forwarded it (p2p.ChangingSet); once the hotkey is registered,
// peers' next statuses backfill its chain.
type ChainSet struct {
	Chain  chain.Reader
	Set    *p2p.ChangingSet
	Every  time.Duration // default DefaultChainSetEvery
	Logger *slog.Logger  // default slog.Default()
}

// Refresh reads the metagraph and sets Set to its hotkeys.
func (c ChainSet) Refresh(ctx context.Context) error {
	m, err := c.Chain.Metagraph(ctx)
	if err != nil {
		return fmt.Errorf("validator set: read metagraph: %w", err)
	}
	vs := make([]keys.PublicKey, 0, len(m.Neurons))
	for _, n := range m.Neurons {
		vs = append(vs, n.Hotkey)
	}
	c.Set.Set(vs...)
	return nil
}

// Run refreshes the set every Every until ctx ends. A failed read keeps
// the last set and is logged.
func (c ChainSet) Run(ctx context.Context, _ *Node) error {
	every, log := c.Every, c.Logger
	if every <= 0 {
		every = DefaultChainSetEvery
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := c.Refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn("keeping the last validator set", "err", err)
		}
	}
}
