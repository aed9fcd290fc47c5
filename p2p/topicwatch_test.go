package p2p

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestStaticPeerBackInTheTopic: when gossipsub's stream to a peer dies
// while the connection stays (a reset under load), gossipsub opens a new
// stream but forgets the peer's subscriptions, which the peer does not
// send again: the peer is out of the topic for as long as the connection
// lasts, and no block reaches it by gossip from this node. A node now
// closes the connection to a static peer absent from the topic for a
// while, and the redial starts gossipsub over.
func TestStaticPeerBackInTheTopic(t *testing.T) {
	t.Parallel()
	start := func(peers ...peer.AddrInfo) *Network {
		n, _ := quietNetwork(t, func(c *Config) {
			c.Heartbeat, c.ReconnectInterval, c.Peers = 100*time.Millisecond, 100*time.Millisecond, peers
		})
		return n
	}
	b := start()
	a := start(b.AddrInfo())
	waitTopic := func(what string, want bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for slices.Contains(a.TopicPeers(), b.ID()) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: b in a's topic peers is not %v after 20 s", what, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitTopic("at start", true)

	// Reset a's gossipsub streams to b: its writer dies, the connection
	// stays.
	reset := 0
	for _, c := range a.host.Network().ConnsToPeer(b.ID()) {
		for _, s := range c.GetStreams() {
			if strings.Contains(string(s.Protocol()), "meshsub") && s.Stat().Direction == network.DirOutbound {
				s.Reset()
				reset++
			}
		}
	}
	if reset == 0 {
		t.Fatal("no outbound gossipsub stream to reset")
	}
	waitTopic("after the reset", false)
	waitTopic("after the watchdog", true)
	if got := a.Stats().TopicResets; got != 1 {
		t.Fatalf("%d topic resets, want 1", got)
	}
}
