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

// bans refuses connections from peers that sent invalid data, for a while,
// and from peers of another network (setApart). It is the host's
// connection gater, so such a peer can neither dial in nor be dialed (by
// the reconnect loop or gossipsub) until its time ends.
type bans struct {
	mu    sync.Mutex
	until map[peer.ID]time.Time
	// apartUntil holds the peers set apart: not banned, since they broke
	// no rule, but of no use to this node.
	apartUntil map[peer.ID]time.Time
	now        func() time.Time
}

func newBans() *bans {
	return &bans{until: map[peer.ID]time.Time{}, apartUntil: map[peer.ID]time.Time{}, now: time.Now}
}

func (b *bans) ban(p peer.ID, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	extend(b.until, p, b.now().Add(d))
}

func (b *bans) banned(p peer.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return holds(b.until, p, b.now())
}

// setApart refuses p for d, and reports whether it was not refused as
// apart already.
func (b *bans) setApart(p peer.ID, d time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	was := holds(b.apartUntil, p, now)
	extend(b.apartUntil, p, now.Add(d))
	return !was
}

func (b *bans) apart(p peer.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return holds(b.apartUntil, p, b.now())
}

// refused reports whether p is banned or set apart: it is neither dialed
// nor admitted.
func (b *bans) refused(p peer.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	return holds(b.until, p, now) || holds(b.apartUntil, p, now)
}

// extend makes p's entry of m end at t, unless it ends later already.
func extend(m map[peer.ID]time.Time, p peer.ID, t time.Time) {
	if t.After(m[p]) {
		m[p] = t
	}
}

// holds reports whether p's entry of m runs at now, forgetting it if it
// ended.
func holds(m map[peer.ID]time.Time, p peer.ID, now time.Time) bool {
	t, ok := m[p]
	if ok && !now.Before(t) {
		delete(m, p)
		return false
	}
	return ok
}

// sweep forgets the bans and separations that ended. banned forgets one
// only when its peer is looked up again; peers banned under fresh IDs that
// never come back would otherwise grow the table for ever.
func (b *bans) sweep() {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	for _, m := range []map[peer.ID]time.Time{b.until, b.apartUntil} {
		for p, t := range m {
			if !now.Before(t) {
				delete(m, p)
			}
		}
	}
}

func (b *bans) InterceptPeerDial(p peer.ID) bool                                { return !b.refused(p) }
func (b *bans) InterceptAddrDial(peer.ID, ma.Multiaddr) bool                    { return true }
func (b *bans) InterceptAccept(network.ConnMultiaddrs) bool                     { return true }
func (b *bans) InterceptUpgraded(network.Conn) (bool, control.DisconnectReason) { return true, 0 }
func (b *bans) InterceptSecured(_ network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	return !b.refused(p)
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
