package p2p

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestListenOnAPortInUseFails: a node told to listen where another node
// listens must not start. go-libp2p's TCP transport sets SO_REUSEPORT, so
// a second node bound the first one's port, and peers dialing the first
// node's address reached either ("peer id mismatch"). And the swarm's
// Listen succeeds when any one address does, so a node whose QUIC port was
// taken ran on TCP alone, unreachable where it was told to be reached.
func TestListenOnAPortInUseFails(t *testing.T) {
	t.Parallel()
	a, _ := quietNetwork(t, func(c *Config) {
		c.Listen = []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0"), ma.StringCast("/ip4/127.0.0.1/udp/0/quic-v1")}
	})
	var tcpAddr, quicAddr ma.Multiaddr
	for _, addr := range a.host.Network().ListenAddresses() {
		if _, err := addr.ValueForProtocol(ma.P_QUIC_V1); err == nil {
			quicAddr = addr
		} else {
			tcpAddr = addr
		}
	}
	if tcpAddr == nil || quicAddr == nil {
		t.Fatalf("node listens on %v, want a TCP and a QUIC address", a.host.Network().ListenAddresses())
	}
	free := ma.StringCast("/ip4/127.0.0.1/tcp/0")
	for _, tc := range []struct {
		name   string
		listen []ma.Multiaddr
		taken  ma.Multiaddr
	}{
		{"tcp", []ma.Multiaddr{tcpAddr}, tcpAddr},
		{"quic", []ma.Multiaddr{quicAddr}, quicAddr},
		{"tcp beside a free address", []ma.Multiaddr{free, tcpAddr}, tcpAddr},
		{"quic beside a free address", []ma.Multiaddr{free, quicAddr}, quicAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			n, err := Start(s, Config{Identity: newIdentity(t), Listen: tc.listen, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err == nil {
				n.Close()
				t.Fatalf("a second node started on %v, where another node listens", tc.listen)
			}
			if !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), tc.taken.String()) {
				t.Errorf("error %q; want it to say address already in use and name %s", err, tc.taken)
			}
		})
	}
	// The first node is still the one reached at its address: a peer
	// dialing it there (from an ephemeral port, without port reuse)
	// connects to it, not to a second node.
	b, _ := quietNetwork(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.host.Connect(ctx, a.AddrInfo()); err != nil {
		t.Fatalf("dial the first node: %v", err)
	}
	if b.host.Network().Connectedness(a.ID()) != network.Connected {
		t.Fatal("not connected to the first node after dialing it")
	}
}
