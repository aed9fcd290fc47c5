package p2p

import (
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Two nodes of one subnet on two chains (a test chain and the main one
// both have a subnet 120) share the gossip topics: a misconfigured
// bootstrap connects them. Neither broke a rule, so neither bans the
// other; but every block one forwards is refused by the other, and three
// refusals would ban it. So once a status shows the peer is of another
// chain, the peer is disconnected and, for ApartDuration, neither dialed
// (static peer, mDNS, gossipsub) nor admitted: its claims are never
// backfilled, its binding never recorded.

// setApart disconnects p, whose status named another chain (err says
// which), and refuses it for ApartDuration. It is closed a moment later,
// so that it can read the answer to its status and learn why.
func (n *Network) setApart(p peer.ID, err error) {
	if p == n.host.ID() || !n.bans.setApart(p, ApartDuration) {
		return
	}
	n.log.Warn("p2p: disconnecting a peer of another network", "peer", p, "for", ApartDuration, "err", err)
	n.metrics.otherNetwork()
	n.peers.forget(p)
	n.goDo(func() {
		select {
		case <-n.ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
		n.host.Network().ClosePeer(p)
	})
}

// Apart reports whether p is set apart as a peer of another network.
func (n *Network) Apart(p peer.ID) bool { return n.bans.apart(p) }
