package p2p

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// served starts an observer's network on an empty store and a bare host
// connected to it, to speak the sync protocol by hand.
func served(t *testing.T, cfg Config) (*Network, host.Host) {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg.Identity = newIdentity(t)
	cfg.Listen = []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.StatusInterval = time.Hour
	n, err := Start(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, connectedHost(t, n)
}

// send sends one raw request frame and returns the stream to read the
// response from.
func send(t *testing.T, h host.Host, n *Network, data []byte) network.Stream {
	t.Helper()
	s, err := h.NewStream(context.Background(), n.ID(), wire.SyncProtocol)
	if err != nil {
		t.Fatal(err)
	}
	s.SetDeadline(time.Now().Add(5 * time.Second))
	if err := wire.WriteFrame(s, data); err != nil {
		t.Fatal(err)
	}
	s.CloseWrite()
	return s
}

// ask sends one raw request frame and returns the decoded response.
func ask(t *testing.T, h host.Host, n *Network, data []byte) *wire.Response {
	t.Helper()
	s := send(t, h, n, data)
	defer s.Close()
	raw, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxResponseBytes)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := wire.DecodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func waitBanned(t *testing.T, n *Network, h host.Host) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !n.Banned(h.ID()) || h.Network().Connectedness(n.ID()) == network.Connected {
		if time.Now().After(deadline) {
			t.Fatalf("peer not banned and disconnected (banned %v)", n.Banned(h.ID()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBadRequestIsAnsweredThenBanned(t *testing.T) {
	t.Parallel()
	n, h := served(t, Config{})
	resp := ask(t, h, n, mustMarshal(t, wire.Request{Blocks: &wire.BlocksRequest{Count: 0}}))
	if resp.Error == nil || resp.Error.Code != wire.CodeBadRequest {
		t.Fatalf("response %+v, want error code %d", resp, wire.CodeBadRequest)
	}
	waitBanned(t, n, h)
	if err := h.Connect(context.Background(), n.AddrInfo()); err == nil && h.Network().Connectedness(n.ID()) == network.Connected {
		time.Sleep(100 * time.Millisecond) // the gater refuses after the handshake
		if h.Network().Connectedness(n.ID()) == network.Connected {
			t.Fatal("a banned peer reconnected")
		}
	}
}

func TestForgedBindingIsBanned(t *testing.T) {
	t.Parallel()
	alice, _ := keys.FromURI("//Alice")
	n, h := served(t, Config{})
	// A binding Alice really signed, but for another node: the one serving.
	b, err := wire.NewBinding(alice, n.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s := send(t, h, n, mustMarshal(t, wire.Request{Status: &wire.Status{Heads: []wire.Head{}, Forks: []codec.Link{}, Binding: b}}))
	defer s.Close()
	waitBanned(t, n, h)
}

func TestBindingIsRecorded(t *testing.T) {
	t.Parallel()
	alice, _ := keys.FromURI("//Alice")
	n, h := served(t, Config{})
	b, err := wire.NewBinding(alice, h.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	resp := ask(t, h, n, mustMarshal(t, wire.Request{Status: &wire.Status{Heads: []wire.Head{}, Forks: []codec.Link{}, Binding: b}}))
	if resp.Status == nil || resp.Status.Binding != nil {
		t.Fatalf("an observer answered %+v, want a status without binding", resp)
	}
	for _, p := range n.Peers() {
		if p.ID == h.ID() && (p.Validator == nil || *p.Validator != alice.Public()) {
			t.Fatalf("peer recorded as %v, want bound to Alice", p.Validator)
		}
	}
	if n.Banned(h.ID()) {
		t.Fatal("an honest peer was banned")
	}
}

func TestRequestsAreRateLimited(t *testing.T) {
	t.Parallel()
	n, h := served(t, Config{RequestRate: 0.5, RequestBurst: 2})
	req := mustMarshal(t, wire.Request{Objects: &wire.ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(codec.Sum([]byte("x")))}}})
	var codes []uint64
	for range 4 {
		resp := ask(t, h, n, req)
		if resp.Error != nil {
			codes = append(codes, resp.Error.Code)
		} else {
			codes = append(codes, 0)
		}
	}
	if codes[0] != 0 || codes[1] != 0 || codes[2] != wire.CodeRateLimited || codes[3] != wire.CodeRateLimited {
		t.Fatalf("codes %v, want two answers then rate limited", codes)
	}
	if n.Banned(h.ID()) {
		t.Fatal("a rate-limited peer was banned")
	}
}
