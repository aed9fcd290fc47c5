package p2p

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// The review's hostile peers: bare libp2p hosts on loopback speaking the
// sync protocol by hand against a node's Network.

// startOn starts an observer's network on store (which the caller closes
// after it), listening on loopback, with no periodic status exchange unless
// tune sets one.
func startOn(t *testing.T, store *ledger.Store, tune ...func(*Config)) *Network {
	t.Helper()
	cfg := Config{
		Identity:       newIdentity(t),
		Listen:         []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
		Logger:         slog.New(slog.DiscardHandler),
		StatusInterval: time.Hour,
	}
	for _, f := range tune {
		f(&cfg)
	}
	n, err := Start(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// stallingPeer is a bare host connected to n whose sync handler reads each
// request and never answers: every request of n to it lasts until n gives
// up (RequestTimeout), which is no misbehavior. requests counts them.
func stallingPeer(t *testing.T, n *Network) (host.Host, *atomic.Int64) {
	t.Helper()
	h, requests := stallingHost(t)
	if err := h.Connect(context.Background(), n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	return h, requests
}

// stallingHost is stallingPeer not yet connected (so that gossipsub can be
// started on it first).
func stallingHost(t *testing.T) (host.Host, *atomic.Int64) {
	t.Helper()
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); h.Close() })
	var requests atomic.Int64
	h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) {
		requests.Add(1)
		io.Copy(io.Discard, s)
		<-ctx.Done()
		s.Reset()
	})
	return h, &requests
}

// askStatus sends st from h to n and checks that n answered with its own.
func askStatus(t *testing.T, h host.Host, n *Network, st *wire.Status) {
	t.Helper()
	s := send(t, h, n, mustMarshal(t, wire.Request{Status: st}))
	defer s.Close()
	raw, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxResponseBytes)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := wire.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status == nil {
		t.Fatalf("status answered %+v", resp)
	}
}

// offerStatus sends st from h to n as askStatus does, for an offer n bans
// h for: the ban may close the connection before n's own status comes
// back, so the answer is read if it comes, and not required.
func offerStatus(t *testing.T, h host.Host, n *Network, st *wire.Status) {
	t.Helper()
	s := send(t, h, n, mustMarshal(t, wire.Request{Status: st}))
	defer s.Close()
	_, _ = wire.ReadFrame(bufio.NewReader(s), wire.MaxResponseBytes)
}

// emptyStatus is an observer's status of subnet 0 holding nothing.
func emptyStatus() *wire.Status {
	return &wire.Status{Heads: []wire.Head{}, Forks: []codec.Link{}}
}

// goroutinesIn counts the goroutines whose stack holds fn (a function
// name as runtime.Stack prints it, e.g. "p2p.(*syncer).work(").
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		k := runtime.Stack(buf, true)
		if k < len(buf) {
			buf = buf[:k]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}

// hostileTopic joins h to n's blocks topic as a peer that publishes at
// once (flood publishing: a message published before a mesh forms is
// dropped otherwise), and returns it once n is among its topic peers.
func hostileTopic(t *testing.T, ctx context.Context, h host.Host, n *Network) *pubsub.Topic {
	t.Helper()
	return hostileTopics(t, ctx, h, n, wire.BlocksTopic(0))[0]
}

// hostileTopics is hostileTopic for the named topics, joined by one
// gossipsub router.
func hostileTopics(t *testing.T, ctx context.Context, h host.Host, n *Network, names ...string) []*pubsub.Topic {
	t.Helper()
	ps, err := pubsub.NewGossipSub(ctx, h, pubsub.WithNoAuthor(), pubsub.WithMessageIdFn(wire.MessageID), pubsub.WithFloodPublish(true))
	if err != nil {
		t.Fatal(err)
	}
	var topics []*pubsub.Topic
	for _, name := range names {
		topic, err := ps.Join(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := topic.Subscribe(); err != nil {
			t.Fatal(err)
		}
		topics = append(topics, topic)
	}
	if err := h.Connect(ctx, n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		for !slices.Contains(topic.ListPeers(), n.ID()) {
			if ctx.Err() != nil {
				t.Fatal("the node never joined the hostile peer's topic")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return topics
}

// startFresh starts a network on a new, empty store.
func startFresh(t *testing.T, tune ...func(*Config)) *Network {
	t.Helper()
	store, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return startOn(t, store, tune...)
}

// readObjectsRequest reads the objects request a stream opens with, or
// resets the stream and returns nil when it opens with anything else.
func readObjectsRequest(s network.Stream) *wire.ObjectsRequest {
	data, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxRequestBytes)
	if err != nil {
		s.Reset()
		return nil
	}
	req, err := wire.DecodeRequest(data)
	if err != nil || req.Objects == nil {
		s.Reset()
		return nil
	}
	return req.Objects
}
