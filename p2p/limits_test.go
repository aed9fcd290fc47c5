package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// hold opens a sync stream and sends only a frame length: the responder
// waits for a request that never comes.
func hold(t *testing.T, h host.Host, n *Network) network.Stream {
	t.Helper()
	s, err := h.NewStream(context.Background(), n.ID(), wire.SyncProtocol)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(binary.AppendUvarint(nil, wire.MaxRequestBytes)); err != nil {
		t.Fatal(err)
	}
	return s
}

// holdAll holds every slot of h and returns once n counts them (streams
// reach the handler asynchronously, late on a loaded machine).
func holdAll(t *testing.T, h host.Host, n *Network) []network.Stream {
	t.Helper()
	var held []network.Stream
	for range MaxStreamsPerPeer {
		held = append(held, hold(t, h, n))
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n.serving.mu.Lock()
		k := n.serving.streams[h.ID()]
		n.serving.mu.Unlock()
		if k == MaxStreamsPerPeer {
			return held
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d held streams reached the responder", k, MaxStreamsPerPeer)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var objectsRequest = wire.Request{Objects: &wire.ObjectsRequest{CIDs: []codec.Link{codec.LinkTo(codec.Sum([]byte("x")))}}}

// TestStreamSlotsLastUntilAnswered: streams whose request never arrives
// hold the peer's slots, further streams are answered busy, and a slot
// comes back when its stream ends.
func TestStreamSlotsLastUntilAnswered(t *testing.T) {
	t.Parallel()
	n, h := served(t, Config{})
	held := holdAll(t, h, n)
	req := mustMarshal(t, objectsRequest)
	if resp := ask(t, h, n, req); resp.Error == nil || resp.Error.Code != wire.CodeBusy {
		t.Fatalf("with %d streams held, a request was answered %+v, want busy", MaxStreamsPerPeer, resp)
	}
	held[0].Reset()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp := ask(t, h, n, req)
		if resp.Objects != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a slot given back was not reused: %+v", resp)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n.Banned(h.ID()) {
		t.Fatal("a peer refused a few times was banned")
	}
}

// requestUntilBanned sends req from h on 8 streams at a time until n
// bans h (or 10 s pass) and counts the answers by error code (0 for an
// answer).
func requestUntilBanned(t *testing.T, h host.Host, n *Network, req []byte) map[uint64]int {
	t.Helper()
	codes := map[uint64]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(10 * time.Second)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !n.Banned(h.ID()) && time.Now().Before(deadline) {
				s, err := h.NewStream(context.Background(), n.ID(), wire.SyncProtocol)
				if err != nil {
					return
				}
				s.SetDeadline(time.Now().Add(5 * time.Second))
				wire.WriteFrame(s, req)
				s.CloseWrite()
				raw, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxResponseBytes)
				s.Close()
				if err != nil {
					continue
				}
				resp, err := wire.DecodeResponse(raw)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if resp.Error != nil {
					codes[resp.Error.Code]++
				} else {
					codes[0]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	waitBanned(t, n, h)
	return codes
}

// TestIgnoringRefusalsIsBanned: a peer that keeps opening streams over its
// slots is banned once it exceeds MaxRefusals.
func TestIgnoringRefusalsIsBanned(t *testing.T) {
	t.Parallel()
	n, h := served(t, Config{})
	holdAll(t, h, n)
	start := time.Now()
	codes := requestUntilBanned(t, h, n, mustMarshal(t, objectsRequest))
	if budget := MaxRefusals + int(RefusalRefill*time.Since(start).Seconds()) + 1; codes[wire.CodeBusy] > budget || codes[0] > 0 {
		t.Fatalf("answers by code %v: want at most %d busy, none served", codes, budget)
	}
}

// TestRequestFloodIsBanned: past its rate a peer is refused; one that
// goes on regardless is banned.
func TestRequestFloodIsBanned(t *testing.T) {
	t.Parallel()
	n, h := served(t, Config{RequestRate: 1, RequestBurst: 1})
	start := time.Now()
	codes := requestUntilBanned(t, h, n, mustMarshal(t, objectsRequest))
	if allowed := 1 + int(time.Since(start).Seconds()) + 1; codes[0] < 1 || codes[0] > allowed || codes[wire.CodeRateLimited] < MaxRefusals/2 {
		t.Fatalf("answers by code %v: want the burst (and refill) answered, then refusals until the ban", codes)
	}
}

func TestClaimsAreBounded(t *testing.T) {
	tbl := newPeerTable()
	p := peer.ID("p")
	alice, _ := keys.FromURI("//Alice")
	st := &wire.Status{}
	for i := range MaxClaimsPerPeer + 100 {
		var v keys.PublicKey
		binary.BigEndian.PutUint64(v[:], uint64(i))
		st.Heads = append(st.Heads, wire.Head{Validator: v, Height: uint64(i)})
	}
	st.Heads = append(st.Heads, wire.Head{Validator: alice.Public(), Height: 7})
	tbl.setStatus(p, st, func(v keys.PublicKey) bool { return v != alice.Public() })
	if got := len(tbl.m[p].claims); got != MaxClaimsPerPeer {
		t.Fatalf("%d claims kept, max %d", got, MaxClaimsPerPeer)
	}
	if _, ok := tbl.m[p].claims[alice.Public()]; ok {
		t.Fatal("a claim on a validator outside the set was kept")
	}
	// Known chains still rise.
	v := st.Heads[0].Validator
	tbl.claim(p, wire.Head{Validator: v, Height: 50}, false)
	if got := tbl.m[p].claims[v]; got != (claim{50, false}) {
		t.Fatalf("claim %+v, want a hint at 50", got)
	}
	// A firm claim at the same height firms it; a hint never weakens one.
	tbl.claim(p, wire.Head{Validator: v, Height: 50}, true)
	tbl.claim(p, wire.Head{Validator: v, Height: 50}, false)
	if got := tbl.m[p].claims[v]; got != (claim{50, true}) {
		t.Fatalf("claim %+v, want firm at 50", got)
	}
}

// TestPeerTableForgetsDisconnectedPeers: claims recorded after a peer's
// disconnect (a message still being handled) go at the next sweep, and
// a peer on another fork stays ignored only while it is remembered.
func TestPeerTableForgetsDisconnectedPeers(t *testing.T) {
	tbl := newPeerTable()
	v, _ := keys.FromURI("//Alice")
	head := wire.Head{Validator: v.Public(), Height: 3}
	for _, p := range []peer.ID{"gone-1", "gone-2", "here"} {
		tbl.claim(p, head, true)
	}
	tbl.forked("here", v.Public())
	tbl.claim("here", head, true)
	if _, ok := tbl.m["here"].claims[v.Public()]; ok {
		t.Fatal("a claim on a chain the peer holds another fork of was recorded")
	}
	tbl.sweep(func(p peer.ID) bool { return p == "here" })
	if len(tbl.m) != 1 || tbl.m["here"] == nil || !tbl.m["here"].otherFork[v.Public()] {
		t.Fatalf("after the sweep: %v", tbl.m)
	}
}

func TestPendingForkProofsAreBounded(t *testing.T) {
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := &Network{store: s, log: slog.New(slog.DiscardHandler)}
	n.proofs = newProofs(n)
	alice, _ := keys.FromURI("//Alice")
	for i := range MaxPendingForkProofs + 20 {
		// The store lacks Alice's chain: every proof waits for a backfill.
		// (record trusts its caller to have verified the proof.)
		p := &record.ForkProof{Format: record.ForkProofFormat, Validator: alice.Public(), Height: 3, A: []byte(fmt.Sprint("a", i)), B: []byte("b")}
		n.proofs.record(p, false)
		n.proofs.record(p, false) // the same proof again takes no room
	}
	if got := len(n.proofs.pending[alice.Public()]); got != MaxPendingForkProofs || n.proofs.npending != got {
		t.Fatalf("%d proofs pending (count %d), max %d", got, n.proofs.npending, MaxPendingForkProofs)
	}
	n.proofs.retry(alice.Public()) // still no chain: they wait again, counted once
	if got := len(n.proofs.pending[alice.Public()]); got != MaxPendingForkProofs || n.proofs.npending != got {
		t.Fatalf("after a retry: %d proofs pending (count %d)", got, n.proofs.npending)
	}
}
