package p2p

import (
	"context"
	"errors"
	"fmt"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// validateTimeout bounds one topic validation, an objects fetch included.
const validateTimeout = 20 * time.Second

func (n *Network) startGossip() error {
	blocks, forks := wire.BlocksTopic(n.cfg.NetUID), wire.ForksTopic(n.cfg.NetUID)
	blacklist, err := pubsub.NewTimeCachedBlacklist(BanDuration)
	if err != nil {
		return fmt.Errorf("p2p: gossipsub blacklist: %w", err)
	}
	params := pubsub.DefaultGossipSubParams()
	params.HeartbeatInterval = n.cfg.Heartbeat
	ps, err := pubsub.NewGossipSub(n.ctx, n.host,
		pubsub.WithNoAuthor(), // StrictNoSign: blocks carry their own signatures
		pubsub.WithMessageIdFn(wire.MessageID),
		pubsub.WithMaxMessageSize(wire.MaxRPCBytes),
		pubsub.WithPeerScore(scoreParams([]string{blocks, forks}, n.appScore), &scoreThresholds),
		pubsub.WithPeerScoreInspect(pubsub.PeerScoreInspectFn(n.scores.report), n.cfg.Heartbeat),
		pubsub.WithDirectPeers(n.cfg.Peers),
		pubsub.WithFloodPublish(true),
		pubsub.WithPeerExchange(false),
		pubsub.WithBlacklist(blacklist),
		pubsub.WithGossipSubParams(params),
	)
	if err != nil {
		return fmt.Errorf("p2p: gossipsub: %w", err)
	}
	n.ps = ps
	if err := ps.RegisterTopicValidator(blocks, n.validateBlock, pubsub.WithValidatorTimeout(validateTimeout), pubsub.WithValidatorConcurrency(MaxValidations)); err != nil {
		return fmt.Errorf("p2p: validator for %s: %w", blocks, err)
	}
	if err := ps.RegisterTopicValidator(forks, n.validateFork, pubsub.WithValidatorTimeout(validateTimeout), pubsub.WithValidatorConcurrency(MaxValidations)); err != nil {
		return fmt.Errorf("p2p: validator for %s: %w", forks, err)
	}
	if n.blocks, err = ps.Join(blocks); err != nil {
		return fmt.Errorf("p2p: join %s: %w", blocks, err)
	}
	if n.forks, err = ps.Join(forks); err != nil {
		return fmt.Errorf("p2p: join %s: %w", forks, err)
	}
	for _, t := range []*pubsub.Topic{n.blocks, n.forks} {
		sub, err := t.Subscribe()
		if err != nil {
			return fmt.Errorf("p2p: subscribe %s: %w", t, err)
		}
		n.subs = append(n.subs, sub)
		n.goDo(func() { drain(n.ctx, sub) })
	}
	return nil
}

// drain consumes a subscription: validators did the work (storing), but
// gossipsub drops messages for a subscriber that does not read.
func drain(ctx context.Context, sub *pubsub.Subscription) {
	for {
		if _, err := sub.Next(ctx); err != nil {
			return
		}
	}
}

// appScore is gossipsub's application-specific score: far below the
// graylist for banned peers.
func (n *Network) appScore(p peer.ID) float64 {
	if n.bans.banned(p) {
		return -1000
	}
	return 0
}

// validateBlock is the blocks topic's validator (spec/p2p.md#validation).
// It stores an accepted block before returning, so a node forwards only
// what it holds durably.
func (n *Network) validateBlock(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	if from == n.host.ID() {
		return pubsub.ValidationAccept // our own block, stored before publishing
	}
	if !n.act.enter() {
		return pubsub.ValidationIgnore
	}
	defer n.act.exit()
	res := n.checkBlockMessage(ctx, from, m)
	n.metrics.gossip(wire.BlocksTopic(n.cfg.NetUID), res)
	return res
}

func (n *Network) checkBlockMessage(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	rb, err := wire.DecodeBlockMessage(m.Data)
	if err == nil {
		err = n.checkBlockNetwork(rb.Block)
		if err != nil && n.setApartIfOfItsOwnChain(from, rb.Net, err) {
			return pubsub.ValidationIgnore
		}
	}
	if err != nil {
		n.strike(from, err)
		return pubsub.ValidationReject
	}
	if !n.cfg.Validators.Contains(rb.Validator) {
		return n.unknownValidator(from, fmt.Errorf("block of unknown validator %s", rb.Validator))
	}
	m.ValidatorData = rb
	// The forwarder stored the block before forwarding it.
	n.peers.claim(from, wire.Head{Validator: rb.Validator, Height: rb.Height}, true)
	release := n.seq.begin(ctx, rb.Validator, rb.Height)
	defer release()

	objects := rb.Objects
	if objects == nil && len(wire.Links(rb.Block)) > 0 && !n.storesHeight(rb.Validator, rb.Height) {
		if rb.Height > 0 && !n.storesHeight(rb.Validator, rb.Height-1) {
			// The store would ignore it for its missing parent whatever
			// its objects: fetching them first let a forwarder make the
			// node take in 64 MiB per message, unpenalized.
			n.sync.kick(rb.Validator)
			return pubsub.ValidationIgnore
		}
		bound := fetchBound(record.MaxBlockObjectBytes)
		if err := n.gossipHeld.reserve(ctx, bound); err != nil {
			// Other gossiped blocks' objects fill the bound until this
			// validation's deadline: a backfill brings the block.
			n.sync.kick(rb.Validator)
			return pubsub.ValidationIgnore
		}
		objects, err = n.fetchObjects(ctx, from, wire.Links(rb.Block), record.MaxBlockObjectBytes)
		got := objectBytes(objects)
		n.gossipHeld.settle(bound, got)
		defer n.gossipHeld.release(got)
		if err != nil {
			n.unservedObjects(from, rb, err)
			return pubsub.ValidationIgnore
		}
	}
	res, err := n.store.Put(rb.Raw, objects)
	return n.afterPut(from, rb.Block, res, err)
}

// unservedObjects penalizes from, which forwarded rb and did not serve
// its objects: it stored the block before forwarding it, so it can. Bad
// data bans it as always. Otherwise (it stalled until the validation's
// deadline, reset the stream, or still refused after withRetry's tries)
// it takes a strike, as for a rejected message: a forwarder that stalls
// holds one of MaxValidations validations for validateTimeout, and one
// strike in MaxStrikes, rather than a ban, leaves room for an honest peer
// that was only slow once.
func (n *Network) unservedObjects(from peer.ID, rb *wire.ReceivedBlock, err error) {
	err = fmt.Errorf("objects of %s height %d, a block it forwarded: %w", rb.Validator.Short(), rb.Height, err)
	switch {
	case isMisbehavior(err):
		n.failed(from, err)
	case n.ctx.Err() == nil:
		n.strike(from, err)
	}
}

// unknownValidator answers a gossiped record of a validator outside the
// node's set: a fixed set (--validator) rejects it and strikes the
// forwarder; a changing one (ChangingSet) ignores it, since the forwarder
// may have read a newer set than this node.
func (n *Network) unknownValidator(from peer.ID, err error) pubsub.ValidationResult {
	if n.changingSet {
		n.log.Debug("p2p: ignored gossip", "peer", from, "err", err)
		return pubsub.ValidationIgnore
	}
	n.strike(from, err)
	return pubsub.ValidationReject
}

// storesHeight reports whether the store has v's chain up to height (a
// known height needs no objects: Put recognizes the block or equivocation).
func (n *Network) storesHeight(v keys.PublicKey, height uint64) bool {
	h, err := n.store.Head(v)
	return err == nil && h.Block.Height >= height
}

// afterPut turns the store's verdict on a gossiped block into gossipsub's.
func (n *Network) afterPut(from peer.ID, blk *record.Block, res ledger.PutResult, err error) pubsub.ValidationResult {
	var eq *ledger.EquivocationError
	switch {
	case err == nil && res.Stored:
		n.stored("gossip")
		if n.proofs.waiting(blk.Validator) {
			// A proof that came before this block waited for it.
			n.goDo(func() { n.proofs.retry(blk.Validator) })
		}
		return pubsub.ValidationAccept
	case err == nil:
		return pubsub.ValidationIgnore // a duplicate
	case errors.As(err, &eq):
		n.equivocation(eq)
		return pubsub.ValidationIgnore
	case errors.Is(err, ledger.ErrLocalChain):
		n.localChainAhead(from, blk)
		return pubsub.ValidationIgnore
	case errors.Is(err, ledger.ErrMissingParent):
		n.sync.kick(blk.Validator)
		return pubsub.ValidationIgnore
	case errors.Is(err, ledger.ErrBadParent) && n.forksBelow(blk):
		// The forwarder's chain differs from ours below this block: the
		// validator signed two histories. Not the forwarder's fault.
		n.sync.resolveFork(from, blk.Validator, blk.Height-1)
		return pubsub.ValidationIgnore
	case errors.Is(err, ledger.ErrInvalidBlock):
		n.strike(from, err)
		return pubsub.ValidationReject
	default:
		n.log.Warn("p2p: store a gossiped block", "validator", blk.Validator, "height", blk.Height, "err", err)
		return pubsub.ValidationIgnore
	}
}

// localChainAhead reports a block of the chain this node writes that its
// appender did not make: not the peer's fault, but the operator's to fix
// before the appender signs a height the network already holds.
func (n *Network) localChainAhead(from peer.ID, blk *record.Block) {
	n.metrics.localChainAhead()
	n.log.Error("p2p: a peer holds a block of the chain this node writes that this store lacks: was the store lost, or does another machine sign with this hotkey? The store signs no more of its blocks (ledger.ErrHalted)",
		"peer", from, "validator", blk.Validator, "height", blk.Height)
}

// forksBelow reports whether blk's parent link differs from the stored
// block at its parent height: the sign of a fork rather than of an invalid
// block.
func (n *Network) forksBelow(blk *record.Block) bool {
	if blk.Height == 0 {
		return false
	}
	parent, err := n.store.BlockAt(blk.Validator, blk.Height-1)
	return err == nil && !parent.CID.Equals(blk.Prev.Cid)
}

// stored records that a peer's block reached the store.
func (n *Network) stored(source string) {
	n.metrics.stored(source)
	n.hub.notify()
}

// equivocation publishes the fork proof the store just recorded.
func (n *Network) equivocation(eq *ledger.EquivocationError) {
	n.log.Warn("p2p: validator equivocated", "validator", eq.Validator, "height", eq.Height, "proof", eq.Proof)
	n.proofs.known(eq.Proof)
	n.hub.notify()
	n.goDo(func() {
		raw, err := n.store.Object(eq.Proof)
		if err != nil {
			n.log.Warn("p2p: read fork proof", "proof", eq.Proof, "err", err)
			return
		}
		n.publishProof(raw)
	})
}

func (n *Network) publishProof(raw []byte) {
	ctx, cancel := context.WithTimeout(n.ctx, 10*time.Second)
	defer cancel()
	if err := n.forks.Publish(ctx, raw); err != nil {
		n.log.Debug("p2p: publish fork proof", "err", err)
	}
}

// validateFork is the forks topic's validator: a valid proof of a known
// validator is accepted (and recorded, after a backfill if the store does
// not reach its height yet).
func (n *Network) validateFork(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	if from == n.host.ID() {
		return pubsub.ValidationAccept
	}
	if !n.act.enter() {
		return pubsub.ValidationIgnore
	}
	defer n.act.exit()
	res := n.checkForkMessage(from, m)
	n.metrics.gossip(wire.ForksTopic(n.cfg.NetUID), res)
	return res
}

func (n *Network) checkForkMessage(from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	if len(m.Data) > wire.MaxGossipBytes {
		n.strike(from, fmt.Errorf("fork proof message of %d bytes", len(m.Data)))
		return pubsub.ValidationReject
	}
	p, err := record.DecodeForkProof(m.Data)
	if err == nil {
		err = n.checkProofNetwork(p)
		if err != nil && n.setApartIfOfItsOwnChain(from, proofNetwork(p), err) {
			return pubsub.ValidationIgnore
		}
	}
	if err != nil {
		n.strike(from, err)
		return pubsub.ValidationReject
	}
	if !n.cfg.Validators.Contains(p.Validator) {
		return n.unknownValidator(from, fmt.Errorf("fork proof of unknown validator %s", p.Validator))
	}
	m.ValidatorData = p
	n.peers.claim(from, wire.Head{Validator: p.Validator, Height: p.Height}, false)
	n.proofs.record(p, true)
	return pubsub.ValidationAccept
}
