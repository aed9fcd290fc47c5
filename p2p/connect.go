package p2p

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
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
// off while dials fail.
func (n *Network) keepConnected(ai peer.AddrInfo) {
	delay := n.cfg.ReconnectInterval
	const maxDelay = 30 * time.Second
	for {
		if n.host.Network().Connectedness(ai.ID) != network.Connected && !n.bans.banned(ai.ID) {
			ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
			err := n.host.Connect(ctx, ai)
			cancel()
			if err != nil {
				n.log.Debug("p2p: dial static peer", "peer", ai.ID, "err", err)
				delay = min(delay*2, maxDelay)
			} else {
				delay = n.cfg.ReconnectInterval
			}
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}

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
			for _, p := range n.host.Network().Peers() {
				n.goDo(func() { n.exchangeStatus(p) })
			}
		}
	}
}

type mdnsNotifee struct{ n *Network }

func (m mdnsNotifee) HandlePeerFound(ai peer.AddrInfo) {
	n := m.n
	if ai.ID == n.host.ID() || n.bans.banned(ai.ID) {
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
