package p2p

import (
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// TestStaticPeerRedialedOnSchedule: a static peer that was down when the
// node started is dialed again on the node's own schedule once it is up.
// libp2p's swarm backs off from an address whose dial failed (5 s, then
// longer with every failure, up to 5 minutes) and refuses dials to it
// meanwhile without trying: a node whose peer restarted reconnected
// only when that back-off ended, whatever its ReconnectInterval said.
func TestStaticPeerRedialedOnSchedule(t *testing.T) {
	t.Parallel()
	addr := freeTCPAddr(t)
	bKey := newIdentity(t)
	bID, err := peer.IDFromPrivateKey(bKey)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := quietNetwork(t, func(c *Config) {
		c.ReconnectInterval = 100 * time.Millisecond
		c.Peers = []peer.AddrInfo{{ID: bID, Addrs: []ma.Multiaddr{addr}}}
	})
	// a's first dials fail: nothing listens there yet.
	time.Sleep(500 * time.Millisecond)
	if a.host.Network().Connectedness(bID) == network.Connected {
		t.Fatal("connected to a peer that is not up")
	}
	quietNetwork(t, func(c *Config) { c.Identity, c.Listen = bKey, []ma.Multiaddr{addr} })
	up := time.Now()
	// a dials every 100 ms, doubling while dials fail: at most 1.6 s
	// after the peer came up. The swarm's back-off alone would have held
	// the next dial until 6 s after the first failure.
	const within = 3 * time.Second
	for a.host.Network().Connectedness(bID) != network.Connected {
		if time.Since(up) > within {
			t.Fatalf("static peer up for %v and not redialed", within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("connected %v after the peer came up", time.Since(up).Round(time.Millisecond))
}
