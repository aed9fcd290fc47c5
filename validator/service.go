package validator

import (
	"context"
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
)

// Service runs the evaluation loop inside a node (node.Service): it writes
// through the node's appender, so that one hotkey has one appender, has
// the node gossip each block as soon as it is durable, and counts into
// the node's metrics. Config's Store,
// Key and Appender are taken from the node; the node must hold a key.
type Service struct {
	Config Config
	// Started, if set, is called with the validator once it has recovered
	// its state from the ledger (status pages, tests).
	Started func(*Validator)
}

// Run implements node.Service.
func (s Service) Run(ctx context.Context, n *node.Node) error {
	cfg := s.Config
	if n.Appender() == nil {
		return fmt.Errorf("validator: %w", node.ErrObserver)
	}
	cfg.Store, cfg.Appender = n.Store(), n.Appender()
	key, ok := n.Key()
	if !ok {
		return fmt.Errorf("validator: %w", node.ErrObserver)
	}
	cfg.Key = key
	if cfg.Metrics == nil {
		cfg.Metrics = n.Metrics()
	}
	onBlock := cfg.OnBlock
	cfg.OnBlock = func(rc ledger.Receipt) {
		n.Announce()
		if onBlock != nil {
			onBlock(rc)
		}
	}
	v, err := New(cfg)
	if err != nil {
		return err
	}
	defer v.Close()
	if s.Started != nil {
		s.Started(v)
	}
	if err := v.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("validator loop: %w", err)
	}
	return nil
}
