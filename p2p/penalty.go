package p2p

import (
	"errors"
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/p2p/wire"
)

// misbehavior marks an error that proves the peer broke the protocol: data
// that does not decode, does not answer the request, or that the store
// refuses although the peer must have stored it. Timeouts, refusals and
// missing data the peer never claimed are not misbehavior.
type misbehavior struct{ err error }

func (m misbehavior) Error() string { return m.err.Error() }
func (m misbehavior) Unwrap() error { return m.err }

func bad(err error) error { return misbehavior{err} }

func isMisbehavior(err error) bool {
	var m misbehavior
	return errors.As(err, &m) || errors.Is(err, wire.ErrBadMessage)
}

// strikes counts rejected gossip messages per peer.
type strikes struct {
	mu sync.Mutex
	n  map[peer.ID]int
}

// strike records a rejected gossip message from p; gossipsub already
// lowered p's score. At MaxStrikes the peer is banned: gossipsub never
// graylists a direct peer, so scoring alone would not stop one.
func (n *Network) strike(p peer.ID, err error) {
	n.log.Info("p2p: rejected gossip", "peer", p, "err", err)
	n.strikes.mu.Lock()
	if n.strikes.n == nil || len(n.strikes.n) >= maxTrackedPeers {
		// Bounded memory. Dropped counts cost little: gossipsub keeps a
		// peer's score, and graylists it at its second rejection.
		n.strikes.n = map[peer.ID]int{}
	}
	n.strikes.n[p]++
	count := n.strikes.n[p]
	n.strikes.mu.Unlock()
	if count >= n.cfg.MaxStrikes {
		n.punish(p, err)
	}
}

// failed handles a failed exchange with p: misbehavior bans it, anything
// else is logged.
func (n *Network) failed(p peer.ID, err error) {
	if isMisbehavior(err) {
		n.punish(p, err)
		return
	}
	n.log.Debug("p2p: exchange with peer failed", "peer", p, "err", err)
}

// punish bans p: its connections are closed and refused for BanDuration,
// gossipsub blacklists it, and its claims are forgotten.
func (n *Network) punish(p peer.ID, err error) {
	if p == n.host.ID() {
		return
	}
	n.log.Warn("p2p: banning peer", "peer", p, "for", BanDuration, "err", err)
	n.metrics.banned()
	n.bans.ban(p, BanDuration)
	n.ps.BlacklistPeer(p)
	n.peers.forget(p)
	n.strikes.mu.Lock()
	delete(n.strikes.n, p)
	n.strikes.mu.Unlock()
	n.host.Network().ClosePeer(p)
}

// Banned reports whether p is currently banned.
func (n *Network) Banned(p peer.ID) bool { return n.bans.banned(p) }
