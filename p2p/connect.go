package p2p

import (
	"context"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
)

// watchPeers exchanges status with every newly connected peer and forgets
// what disconnected peers claimed.
func (n *Network) watchPeers(sub event.Subscription) {
	defer sub.Close()
	for {
		select {
		case <-n.ctx.Done():
			return
		case e, ok := <-sub.Out():
			if !ok {
				return
			}
			ev := e.(event.EvtPeerConnectednessChanged)
			switch ev.Connectedness {
			case network.Connected:
				n.metrics.peers.Inc()
				n.goDo(func() { n.exchangeStatus(ev.Peer) })
			case network.NotConnected:
				n.metrics.peers.Dec()
				n.peers.forget(ev.Peer)
			}
		}
	}
}

// keepConnected dials a static peer whenever it is disconnected, backing
// off while dials fail, and restarts a connection on which gossipsub lost
// the peer (see topicGrace).
func (n *Network) keepConnected(ai peer.AddrInfo) {
	delay := n.cfg.ReconnectInterval
	const maxDelay = 30 * time.Second
	var absentSince time.Time
	for {
		switch {
		case n.host.Network().Connectedness(ai.ID) != network.Connected:
			absentSince = time.Time{}
			if n.bans.refused(ai.ID) {
				n.static.down(ai.ID, time.Now(), "not dialed: banned or set apart (of another chain)")
				break
			}
			n.static.down(ai.ID, time.Now(), "")
			// The swarm backs off from an address whose dial failed (5 s
			// at first, then up to 5 minutes) and refuses dials to it
			// meanwhile without trying; a static peer is dialed on this
			// loop's schedule instead, itself backing off to maxDelay.
			if sw, ok := n.host.Network().(*swarm.Swarm); ok {
				sw.Backoff().Clear(ai.ID)
			}
			ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
			err := n.host.Connect(ctx, ai)
			cancel()
			if err != nil {
				n.dialFailed(ai, err)
				delay = min(delay*2, maxDelay)
			} else {
				n.staticConnected(ai.ID)
				delay = n.cfg.ReconnectInterval
			}
		case slices.Contains(n.blocks.ListPeers(), ai.ID):
			n.staticConnected(ai.ID)
			absentSince = time.Time{}
		case absentSince.IsZero():
			n.staticConnected(ai.ID)
			absentSince = time.Now()
		case time.Since(absentSince) > topicGrace(n.cfg):
			n.log.Info("p2p: static peer connected but not in the blocks topic; reconnecting", "peer", ai.ID, "for", time.Since(absentSince).Round(time.Millisecond))
			n.metrics.topicReset()
			n.host.Network().ClosePeer(ai.ID)
			absentSince = time.Time{}
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}

// dialFailed logs a failed dial of a static peer: at WARN the first time
// and every staticWarnEvery while it keeps failing, else at DEBUG. A
// static peer is one the operator named; one that cannot be reached (a
// mistyped address, a firewall, the peer down) must be seen.
func (n *Network) dialFailed(ai peer.AddrInfo, err error) {
	if n.ctx.Err() != nil {
		return // the node is closing: the dial was cancelled
	}
	if n.static.failed(ai.ID, time.Now(), err) {
		n.log.Warn("p2p: cannot reach static peer; dialing it again with back-off", "peer", ai.ID, "addrs", ai.Addrs, "err", err)
		return
	}
	n.log.Debug("p2p: dial static peer", "peer", ai.ID, "err", err)
}

// staticConnected notes that a static peer is connected, and says so at
// INFO if its failed dials were warned of.
func (n *Network) staticConnected(p peer.ID) {
	if after, failures, warned := n.static.connected(p, time.Now()); warned {
		n.log.Info("p2p: static peer connected again", "peer", p, "after", after.Round(time.Second), "failed_dials", failures)
	}
}

// topicGrace is how long a connected static peer may be absent from the
// blocks topic before the connection is closed and dialed again. When
// gossipsub's stream to a peer dies while the connection stays (a reset
// under load), gossipsub opens a new one but forgets the peer's
// subscriptions, which the peer announces only on a new connection: until
// then no block goes to it by gossip from this node. A new peer announces
// them at once, so the grace only has to cover a slow start.
func topicGrace(c Config) time.Duration { return max(20*c.Heartbeat, 5*time.Second) }

// statusLoop exchanges heads with every connected peer periodically, which
// repairs anything gossip missed.
func (n *Network) statusLoop() {
	t := time.NewTicker(n.cfg.StatusInterval)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
			n.peers.sweep(func(p peer.ID) bool { return n.host.Network().Connectedness(p) == network.Connected })
			n.bans.sweep()
			for _, p := range n.host.Network().Peers() {
				n.goDo(func() { n.exchangeStatus(p) })
			}
		}
	}
}

type mdnsNotifee struct{ n *Network }

func (m mdnsNotifee) HandlePeerFound(ai peer.AddrInfo) {
	n := m.n
	if ai.ID == n.host.ID() || n.bans.refused(ai.ID) {
		return
	}
	n.goDo(func() {
		ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
		defer cancel()
		if err := n.host.Connect(ctx, ai); err != nil {
			n.log.Debug("p2p: dial mdns peer", "peer", ai.ID, "err", err)
		}
	})
}
