package p2p

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// bans refuses connections from peers that sent invalid data, for a while.
// It is the host's connection gater, so a banned peer can neither dial in
// nor be dialed (by the reconnect loop or gossipsub) until the ban ends.
type bans struct {
	mu    sync.Mutex
	until map[peer.ID]time.Time
	now   func() time.Time
}

func newBans() *bans { return &bans{until: map[peer.ID]time.Time{}, now: time.Now} }

func (b *bans) ban(p peer.ID, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.now().Add(d); t.After(b.until[p]) {
		b.until[p] = t
	}
}

func (b *bans) banned(p peer.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.until[p]
	if ok && !b.now().Before(t) {
		delete(b.until, p)
		return false
	}
	return ok
}

// sweep forgets the bans that ended. banned forgets one only when its
// peer is looked up again; peers banned under fresh IDs that never come
// back would otherwise grow the table for ever.
func (b *bans) sweep() {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	for p, t := range b.until {
		if !now.Before(t) {
			delete(b.until, p)
		}
	}
}

func (b *bans) InterceptPeerDial(p peer.ID) bool                                { return !b.banned(p) }
func (b *bans) InterceptAddrDial(peer.ID, ma.Multiaddr) bool                    { return true }
func (b *bans) InterceptAccept(network.ConnMultiaddrs) bool                     { return true }
func (b *bans) InterceptUpgraded(network.Conn) (bool, control.DisconnectReason) { return true, 0 }
func (b *bans) InterceptSecured(_ network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	return !b.banned(p)
}

// allOf admits a connection only if every gater admits it.
type allOf []connmgr.ConnectionGater

func (g allOf) InterceptPeerDial(p peer.ID) bool {
	for _, x := range g {
		if !x.InterceptPeerDial(p) {
			return false
		}
	}
	return true
}

func (g allOf) InterceptAddrDial(p peer.ID, a ma.Multiaddr) bool {
	for _, x := range g {
		if !x.InterceptAddrDial(p, a) {
			return false
		}
	}
	return true
}

func (g allOf) InterceptAccept(c network.ConnMultiaddrs) bool {
	for _, x := range g {
		if !x.InterceptAccept(c) {
			return false
		}
	}
	return true
}

func (g allOf) InterceptSecured(d network.Direction, p peer.ID, c network.ConnMultiaddrs) bool {
	for _, x := range g {
		if !x.InterceptSecured(d, p, c) {
			return false
		}
	}
	return true
}

func (g allOf) InterceptUpgraded(c network.Conn) (bool, control.DisconnectReason) {
	for _, x := range g {
		if ok, reason := x.InterceptUpgraded(c); !ok {
			return false, reason
		}
	}
	return true, 0
}
