package p2p

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/internal/syncbuf"
)

// TestUnreachableStaticPeerIsWarnedOfAndListed: a static peer whose dials
// fail was logged at DEBUG only, and the status listed connected peers
// only, so a mistyped --peer went unseen. Its first failed dial is a
// WARN, the next ones are not (until staticWarnEvery passed), the node
// lists it with the last dial's error while it is down, and says at INFO
// when it is connected again.
func TestUnreachableStaticPeerIsWarnedOfAndListed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr := freeTCPAddr(t)
	bKey := newIdentity(t)
	bID, err := peer.IDFromPrivateKey(bKey)
	if err != nil {
		t.Fatal(err)
	}
	var log syncbuf.Buffer
	a, _ := quietNetwork(t, func(c *Config) {
		c.ReconnectInterval = 10 * time.Millisecond
		c.Peers = []peer.AddrInfo{{ID: bID, Addrs: []ma.Multiaddr{addr}}}
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	const dials = 4
	var down StaticPeerInfo
	for down.FailedDials < dials {
		if ctx.Err() != nil {
			t.Fatalf("never saw %d failed dials of the static peer; listed %+v", dials, a.StaticPeersDown())
		}
		time.Sleep(10 * time.Millisecond)
		if l := a.StaticPeersDown(); len(l) == 1 {
			down = l[0]
		}
	}
	if down.ID != bID || len(down.Addrs) != 1 || down.Addrs[0] != addr.String() || down.Since.IsZero() || !strings.Contains(down.LastError, "connection refused") {
		t.Errorf("listed %+v; want peer %s at %s, since when, and its dial's error (connection refused)", down, bID, addr)
	}
	if got := strings.Count(log.String(), "level=WARN msg=\"p2p: cannot reach static peer"); got != 1 {
		t.Errorf("%d failed dials logged %d WARN lines, want 1:\n%s", down.FailedDials, got, log.String())
	}
	if line := firstLine(log.String(), "level=WARN"); !strings.Contains(line, bID.String()) || !strings.Contains(line, "connection refused") {
		t.Errorf("the WARN does not name the peer and the error: %s", line)
	}

	quietNetwork(t, func(c *Config) { c.Identity, c.Listen = bKey, []ma.Multiaddr{addr} })
	for a.host.Network().Connectedness(bID) != network.Connected || !strings.Contains(log.String(), "static peer connected again") {
		if ctx.Err() != nil {
			t.Fatalf("the static peer came up and was never reported connected again:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if line := firstLine(log.String(), "connected again"); !strings.Contains(line, "level=INFO") || !strings.Contains(line, bID.String()) {
		t.Errorf("the reconnection is not an INFO naming the peer: %s", line)
	}
	if l := a.StaticPeersDown(); len(l) != 0 {
		t.Errorf("a connected static peer is listed as down: %+v", l)
	}
}

func firstLine(s, substr string) string {
	for line := range strings.Lines(s) {
		if strings.Contains(line, substr) {
			return line
		}
	}
	return ""
}

// TestStaticPeerWarnings: while a static peer's dials fail, one WARN at
// the first failure and one every staticWarnEvery after; once it is
// connected, the next failure is warned of at once again.
func TestStaticPeerWarnings(t *testing.T) {
	t.Parallel()
	s := newStaticPeers()
	p := peer.ID("p")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	dialErr := errors.New("connection refused")
	for _, step := range []struct {
		at   time.Duration
		warn bool
	}{
		{0, true},
		{time.Second, false},
		{staticWarnEvery - time.Second, false},
		{staticWarnEvery, true},
		{staticWarnEvery + time.Minute, false},
		{2 * staticWarnEvery, true},
	} {
		if got := s.failed(p, t0.Add(step.at), dialErr); got != step.warn {
			t.Errorf("failed dial at +%v: warn %v, want %v", step.at, got, step.warn)
		}
	}
	after, failures, warned := s.connected(p, t0.Add(2*staticWarnEvery+time.Second))
	if after != 2*staticWarnEvery+time.Second || failures != 6 || !warned {
		t.Errorf("connected: after %v, %d failures, warned %v; want %v, 6, true", after, failures, warned, 2*staticWarnEvery+time.Second)
	}
	if !s.failed(p, t0.Add(2*staticWarnEvery+2*time.Second), dialErr) {
		t.Error("the first failure after a reconnection was not warned of")
	}
	// A peer that was only found not connected, no dial failing, was
	// not warned of: its connection is no news.
	q := peer.ID("q")
	s.down(q, t0, "")
	if _, _, warned := s.connected(q, t0.Add(time.Second)); warned {
		t.Error("a peer with no failed dial was reported as warned of")
	}
}
