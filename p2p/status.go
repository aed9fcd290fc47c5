package p2p

import (
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/multiformats/go-multistream"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// status describes this node: its network, every stored head, the fork
// proofs it knows, its binding.
func (n *Network) status() (*wire.Status, error) {
	st := &wire.Status{
		NetUID: uint64(n.cfg.NetUID), Genesis: wire.GenesisOf(n.store.Network()),
		Heads: []wire.Head{}, Forks: codec.LinksTo(n.proofs.list(wire.MaxForks)), Binding: n.binding,
	}
	for h, err := range n.store.Heads() {
		if err != nil {
			return nil, err
		}
		if len(st.Heads) == wire.MaxHeads {
			break
		}
		st.Heads = append(st.Heads, wire.Head{Validator: h.Block.Validator, Height: h.Block.Height, CID: codec.LinkTo(h.Block.CID)})
	}
	return st, nil
}

// takeStatus checks and records a peer's status, then backfills what it
// has and we lack. A binding that does not verify is misbehavior: the peer
// claims to speak for a validator it is not. A peer of another chain is
// set apart: nothing it holds is of use here.
func (n *Network) takeStatus(p peer.ID, st *wire.Status) error {
	if st.NetUID != uint64(n.cfg.NetUID) {
		return fmt.Errorf("status for subnet %d, this is subnet %d", st.NetUID, n.cfg.NetUID)
	}
	if err := n.checkStatusNetwork(st); err != nil {
		n.setApart(p, err)
		return err
	}
	if st.Binding != nil {
		if err := st.Binding.Verify(p, n.cfg.NetUID); err != nil {
			n.punish(p, err)
			return err
		}
	}
	n.peers.setStatus(p, st, n.cfg.Validators.Contains)
	for _, h := range st.Heads {
		if !n.cfg.Validators.Contains(h.Validator) {
			continue
		}
		mine, err := n.store.Head(h.Validator)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			n.sync.kick(h.Validator)
		case err != nil:
			return fmt.Errorf("head of %s: %w", h.Validator.Short(), err)
		case h.Height > mine.Block.Height:
			n.sync.kick(h.Validator)
		case h.Height == mine.Block.Height && !h.CID.Cid.Equals(mine.Block.CID) && !mine.Equivocating:
			n.sync.resolveFork(p, h.Validator, h.Height)
		}
	}
	if unknown := n.proofs.unknown(st.Forks); len(unknown) > 0 {
		n.proofs.goFetch(p, unknown)
	}
	return nil
}

// exchangeStatus sends our status to p and takes its answer.
func (n *Network) exchangeStatus(p peer.ID) {
	// Not skipped for a peer set apart while still connected: its own
	// status may be all that told us, and it learns that we are of
	// another chain only from ours (else it would go on dialing us).
	if n.bans.banned(p) {
		return
	}
	st, err := n.status()
	if err != nil {
		n.log.Warn("p2p: build status", "err", err)
		return
	}
	resp, err := n.withRetry(n.ctx, p, &wire.Request{Status: st})
	if err != nil {
		if errors.Is(err, multistream.ErrNotSupported[protocol.ID]{}) {
			return // a peer that only gossips (a light client, another tool)
		}
		n.failed(p, fmt.Errorf("status exchange: %w", err))
		return
	}
	if resp.Status == nil {
		n.punish(p, errors.New("status request answered with another kind"))
		return
	}
	if err := n.takeStatus(p, resp.Status); err != nil {
		n.log.Debug("p2p: status from peer", "peer", p, "err", err)
	}
}
