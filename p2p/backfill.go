package p2p

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// maxBackfills bounds the chains backfilled at once. Chains of different
// validators are put concurrently, so their synced commits share fsyncs.
const maxBackfills = 4

// maxQueuedBackfills bounds the chains waiting for a backfill worker. A
// status names up to wire.MaxHeads chains, of validators a node that
// accepts every signed chain has never heard of; a chain left out when the
// queue is full is kicked again by the peer's next status.
const maxQueuedBackfills = 4096

// errFork stops a backfill from a peer whose chain of the validator
// differs from ours: the validator equivocated, the proof is recorded, and
// the peer did nothing wrong.
var errFork = errors.New("peer holds another fork of the chain")

// errLocalChain stops a backfill of the chain this node writes: the peer
// holds blocks of it that the store does not (ledger.ErrLocalChain).
var errLocalChain = errors.New("peer holds blocks of the chain this node writes beyond its store")

// syncer backfills chains: at most maxBackfills workers take chains from
// a queue, each pulling from whichever connected peer claims the most of
// that chain beyond our head. A chain is queued once however often it is
// kicked, and a goroutine exists per worker, not per chain: chains wait
// as queue entries, so peers naming many chains cost a few bytes each.
type syncer struct {
	n  *Network
	mu sync.Mutex
	// running are the chains a worker backfills; again, those kicked
	// meanwhile, which the worker looks at once more before it stops.
	running map[keys.PublicKey]bool
	again   map[keys.PublicKey]bool
	queue   []keys.PublicKey
	queued  map[keys.PublicKey]bool
	workers int
	// resolving are the fork resolutions running, one per peer and chain.
	resolving map[forkAt]bool
	// passed are the peers a backfill stalled on, passed over for every
	// chain until a time (see passOver); under passMu.
	passMu sync.Mutex
	passed map[peer.ID]passedOver
	// held bounds the fetched bytes all workers hold before storing them.
	held *heldBytes
}

type passedOver struct {
	until    time.Time
	failures int
}

// Backfill's pass-over of a peer that stalled a pull (spec/p2p.md#sync).
const (
	passOverFirst = time.Minute
	passOverMax   = BanDuration
)

type forkAt struct {
	p peer.ID
	v keys.PublicKey
}

func newSyncer(n *Network) *syncer {
	return &syncer{n: n, running: map[keys.PublicKey]bool{}, again: map[keys.PublicKey]bool{}, queued: map[keys.PublicKey]bool{}, resolving: map[forkAt]bool{}, passed: map[peer.ID]passedOver{}, held: newHeldBytes(n.cfg.backfillMemory)}
}

// kick makes sure v's chain is backfilled from peers' claims: it queues
// the chain, or tells the worker on it to look again before it stops.
func (s *syncer) kick(v keys.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.running[v]:
		s.again[v] = true
		return
	case s.queued[v] || len(s.queue) >= maxQueuedBackfills:
		return
	}
	s.queued[v] = true
	s.queue = append(s.queue, v)
	if s.workers < maxBackfills {
		s.workers++
		s.n.goDo(s.worker)
	}
}

// worker backfills queued chains, one at a time, until the queue is empty.
func (s *syncer) worker() {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 || s.n.ctx.Err() != nil {
			s.workers--
			s.mu.Unlock()
			return
		}
		v := s.queue[0]
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = nil // let the backing array go
		}
		delete(s.queued, v)
		s.running[v] = true
		s.mu.Unlock()
		s.work(v)
	}
}

// work backfills v until no usable peer claims more of it than we hold.
func (s *syncer) work(v keys.PublicKey) {
	n := s.n
	for n.ctx.Err() == nil {
		have, haveAny := s.local(v)
		p, claimed, ok := n.peers.best(v, have, haveAny, func(p peer.ID) bool { return n.usable(p) && !s.passedOver(p) })
		if !ok {
			// Under one lock with the check of again: a kick after it
			// queues the chain afresh.
			s.mu.Lock()
			if s.again[v] {
				s.again[v] = false
				s.mu.Unlock()
				continue
			}
			delete(s.running, v)
			delete(s.again, v)
			s.mu.Unlock()
			n.proofs.retry(v)
			return
		}
		from := uint64(0)
		if haveAny {
			from = have + 1
		}
		err := s.pull(p, v, from, claimed)
		switch {
		case err == nil:
			s.served(p)
		case errors.Is(err, errFork) || errors.Is(err, errLocalChain):
			n.peers.forked(p, v)
		default:
			n.peers.drop(p, v)
			if errors.Is(err, errStalled) {
				s.passOver(p)
			}
			n.failed(p, fmt.Errorf("backfill %s from height %d: %w", v.Short(), from, err))
		}
	}
}

// passOver has every backfill pass over p for a while: it left a request
// for a chain it claimed unanswered for RequestTimeout. That is no proof
// of misbehavior, so p is not banned; but its claims on other chains are
// as likely to stall, and each stall holds a worker for RequestTimeout. A
// peer that refuses or goes away fails fast and is not passed over (a
// restarting node must be backfilled from as soon as it is back). The
// while doubles with each stall in a row, from passOverFirst up to
// passOverMax, so that a peer that claims every chain and answers nothing
// (a status names them all afresh) costs each worker one stall, then one
// per passOverMax.
func (s *syncer) passOver(p peer.ID) {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	if len(s.passed) >= maxTrackedPeers {
		s.passed = map[peer.ID]passedOver{} // bounded; a peer gains one stall
	}
	po := s.passed[p]
	po.failures++
	po.until = time.Now().Add(min(passOverFirst<<min(po.failures-1, 16), passOverMax))
	s.passed[p] = po
}

// passedOver reports whether backfills pass over p now.
func (s *syncer) passedOver(p peer.ID) bool {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	return time.Now().Before(s.passed[p].until)
}

// served forgets p's failures: it served a pull to its end.
func (s *syncer) served(p peer.ID) {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	delete(s.passed, p)
}

// usable reports whether p can be asked for data now.
func (n *Network) usable(p peer.ID) bool {
	return n.host.Network().Connectedness(p) == network.Connected && !n.bans.refused(p)
}

// local returns the height of v's stored head.
func (s *syncer) local(v keys.PublicKey) (uint64, bool) {
	h, err := s.n.store.Head(v)
	if err != nil {
		return 0, false
	}
	return h.Block.Height, true
}

// pull stores v's blocks from up to p's claim from p. The next batch is
// fetched while the current one is being stored.
func (s *syncer) pull(p peer.ID, v keys.PublicKey, from uint64, claimed claim) error {
	target := claimed.height
	ctx, cancel := context.WithCancel(s.n.ctx)
	type batch struct {
		blocks []fetched
		err    error
	}
	ch := make(chan batch, 1)
	budget := s.n.cfg.backfillFetch
	go func() {
		defer close(ch)
		for next := from; next <= target; {
			var bs []fetched
			err := s.held.reserve(ctx, fetchBound(budget))
			if err == nil {
				bs, err = s.n.fetchBlocks(ctx, p, v, next, min(target-next+1, wire.MaxBlocksPerRequest), budget)
				s.held.settle(fetchBound(budget), sizeOf(bs))
			}
			if err == nil && len(bs) == 0 {
				err = fmt.Errorf("peer %s has no block of %s at height %d but claimed height %d", p, v.Short(), next, target)
				if claimed.firm {
					// By its status, or by forwarding a block it had to
					// store first; blocks are never deleted, so an honest
					// peer has every one below.
					err = bad(err)
				}
			}
			select {
			case ch <- batch{bs, err}:
			case <-ctx.Done():
				s.held.release(sizeOf(bs))
				return
			}
			if err != nil {
				return
			}
			next += uint64(len(bs))
		}
	}()
	defer func() {
		cancel()
		for b := range ch {
			s.held.release(sizeOf(b.blocks))
		}
	}()
	for b := range ch {
		if b.err != nil {
			return b.err
		}
		for i, f := range b.blocks {
			err := s.put(p, f)
			s.held.release(f.size())
			if err != nil {
				s.held.release(sizeOf(b.blocks[i+1:]))
				return err
			}
		}
	}
	return nil
}

// put stores one fetched block.
func (s *syncer) put(p peer.ID, f fetched) error {
	n := s.n
	res, err := n.store.Put(f.raw, f.objects)
	var eq *ledger.EquivocationError
	switch {
	case err == nil:
		if res.Stored {
			n.stored("sync")
		}
		return nil
	case errors.As(err, &eq):
		n.equivocation(eq)
		return errFork
	case errors.Is(err, ledger.ErrLocalChain):
		n.localChainAhead(p, f.blk)
		return errLocalChain
	case errors.Is(err, ledger.ErrBadParent) && n.forksBelow(f.blk):
		if err := s.fork(p, f.blk.Validator, f.blk.Height-1); err != nil {
			return err
		}
		return errFork
	case errors.Is(err, ledger.ErrInvalidBlock):
		// p stored this block, so its store accepted what ours refuses.
		return bad(err)
	default:
		return err
	}
}

// fork gets p's block of v at height, where p's chain is believed to differ
// from ours, and puts it: the store records the fork proof. If p's block is
// ours after all, p served an inconsistent chain.
func (s *syncer) fork(p peer.ID, v keys.PublicKey, height uint64) error {
	n := s.n
	raw, err := n.fetchBlock(n.ctx, p, v, height)
	if err != nil {
		return err
	}
	_, err = n.store.Put(raw, nil)
	var eq *ledger.EquivocationError
	switch {
	case errors.As(err, &eq):
		n.equivocation(eq)
		return nil
	case err == nil:
		err = bad(fmt.Errorf("peer %s serves a chain of %s that does not link its own block at height %d", p, v.Short(), height))
	case errors.Is(err, ledger.ErrInvalidBlock) && !errors.Is(err, ledger.ErrMissingObject):
		err = bad(err)
	}
	return err
}

// resolveFork runs fork in the background, penalizing p if it misbehaved.
// It does nothing while a resolution of p's fork of v runs: a peer that
// repeats its status (50 a second) and stalls the fetch would otherwise
// make the node start one more each time, all waiting for its streams.
func (s *syncer) resolveFork(p peer.ID, v keys.PublicKey, height uint64) {
	k := forkAt{p, v}
	s.mu.Lock()
	if s.resolving[k] {
		s.mu.Unlock()
		return
	}
	s.resolving[k] = true
	s.mu.Unlock()
	s.n.goDo(func() {
		defer func() {
			s.mu.Lock()
			delete(s.resolving, k)
			s.mu.Unlock()
		}()
		if err := s.fork(p, v, height); err != nil {
			s.n.failed(p, fmt.Errorf("fork of %s at height %d: %w", v.Short(), height, err))
		}
	})
}

// fetchBlock gets p's block of v at height alone (no objects are needed to
// put a block at a height the store already has).
func (n *Network) fetchBlock(ctx context.Context, p peer.ID, v keys.PublicKey, height uint64) ([]byte, error) {
	resp, err := n.withRetry(ctx, p, &wire.Request{Blocks: &wire.BlocksRequest{Validator: v, From: height, Count: 1}})
	if err != nil {
		return nil, err
	}
	if resp.Blocks == nil || len(resp.Blocks.Blocks) != 1 {
		return nil, bad(fmt.Errorf("peer %s did not serve %s height %d", p, v.Short(), height))
	}
	raw := resp.Blocks.Blocks[0]
	blk, err := record.DecodeBlock(raw)
	if err != nil {
		return nil, bad(fmt.Errorf("block from %s: %w", p, err))
	}
	if blk.Validator != v || blk.Height != height {
		return nil, bad(fmt.Errorf("peer %s sent %s height %d for %s height %d", p, blk.Validator.Short(), blk.Height, v.Short(), height))
	}
	if err := blk.VerifySignature(); err != nil {
		return nil, bad(fmt.Errorf("block %s from %s: %w", codec.Sum(raw), p, err))
	}
	return raw, nil
}
