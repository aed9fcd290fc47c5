package p2p

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// publisher gossips the local validator's blocks once they are durable, in
// height order, each once. It reads them back from the store rather than
// taking them from the appender, so it can only ever publish what a crash
// would not lose.
type publisher struct {
	n      *Network
	mu     sync.Mutex // serializes publishNew; guards next
	next   uint64
	active bool
	wakeCh chan struct{}
}

func newPublisher(n *Network) *publisher { return &publisher{n: n, wakeCh: make(chan struct{}, 1)} }

// init starts after the stored head: blocks from before this start reach
// peers by sync.
func (p *publisher) init() error {
	if p.n.cfg.Key == nil {
		return nil
	}
	p.active = true
	h, err := p.n.store.Head(p.n.cfg.Key.Public())
	switch {
	case errors.Is(err, ledger.ErrNotFound):
	case err != nil:
		return fmt.Errorf("p2p: local head: %w", err)
	default:
		p.next = h.Block.Height + 1
	}
	return nil
}

func (p *publisher) wake() {
	select {
	case p.wakeCh <- struct{}{}:
	default:
	}
}

// loop publishes on every wake, and every few seconds in case an append
// was never announced.
func (p *publisher) loop() {
	if !p.active {
		return
	}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.n.ctx.Done():
			return
		case <-p.wakeCh:
		case <-t.C:
		}
		if err := p.publishNew(p.n.ctx); err != nil && p.n.ctx.Err() == nil {
			p.n.log.Warn("p2p: publish local blocks", "err", err)
		}
	}
}

// publishNew publishes every durable local block after the last published.
func (p *publisher) publishNew(ctx context.Context) error {
	if !p.active {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.n
	for b, err := range n.store.Blocks(n.cfg.Key.Public(), p.next) {
		if err != nil {
			return err
		}
		data, err := n.blockMessage(b)
		if err != nil {
			return err
		}
		if err := n.blocks.Publish(ctx, data); err != nil {
			return fmt.Errorf("publish %s: %w", b.Ref(), err)
		}
		n.metrics.publishedBlock()
		p.next = b.Height + 1
		n.hub.notify()
	}
	return nil
}

// blockMessage builds the gossip message of a stored block.
func (n *Network) blockMessage(b ledger.StoredBlock) ([]byte, error) {
	ls := wire.Links(b.Block)
	objects := make([][]byte, 0, len(ls))
	size := len(b.Raw)
	for _, l := range ls {
		if size > wire.MaxGossipBytes {
			objects = nil // cannot fit: EncodeBlockMessage sends the block alone
			break
		}
		raw, err := n.store.Object(l)
		if err != nil {
			return nil, fmt.Errorf("object %s of %s: %w", l, b.Ref(), err)
		}
		objects = append(objects, raw)
		size += len(raw)
	}
	if objects == nil {
		return wire.EncodeBlockMessage(b.Raw, [][]byte{})
	}
	return wire.EncodeBlockMessage(b.Raw, objects)
}
