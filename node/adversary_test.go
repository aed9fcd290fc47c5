package node_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// The adversary harness: hostile peers, built from bare libp2p hosts,
// against honest nodes on loopback. Each hostile behaviour is checked for
// the same things: the node stays up and keeps its memory bounded, honest
// blocks keep arriving, nothing invalid is stored or spreads, and a peer
// that provably broke the protocol ends with a negative gossipsub score,
// banned and disconnected. Relaying what an honest peer would relay (a
// replayed block, a validator's two conflicting blocks) is not held
// against the relayer.

// newHostile is a rogue that can also publish on the forks topic and send
// RPCs up to maxRPC bytes (gossipsub's default, 1 MiB, keeps a rogue from
// sending anything a node would refuse by size alone).
func newHostile(t *testing.T, ctx context.Context, maxRPC int) (*rogue, *pubsub.Topic) {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2p.NewHost(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.Network().Listen(ma.StringCast("/ip4/127.0.0.1/tcp/0")); err != nil {
		t.Fatal(err)
	}
	ps, err := pubsub.NewGossipSub(ctx, h, pubsub.WithNoAuthor(), pubsub.WithMessageIdFn(wire.MessageID), pubsub.WithMaxMessageSize(maxRPC))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := ps.Join(wire.BlocksTopic(recordtest.Network.Netuid))
	if err != nil {
		t.Fatal(err)
	}
	forks, err := ps.Join(wire.ForksTopic(recordtest.Network.Netuid))
	if err != nil {
		t.Fatal(err)
	}
	return &rogue{h: h, ps: ps, blocks: blocks}, forks
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitPunished waits until n has banned p, dropped every connection to
// it, and gossipsub scores it below zero.
func waitPunished(t *testing.T, ctx context.Context, n *node.Node, p peer.ID) {
	t.Helper()
	net := n.Network()
	waitFor(t, ctx, fmt.Sprintf("ban of %s (%+v)", p, net.Stats()), func() bool { return net.Banned(p) })
	waitFor(t, ctx, "disconnect of the banned peer", func() bool {
		return net.Host().Network().Connectedness(p) != network.Connected
	})
	waitFor(t, ctx, "negative gossipsub score of the banned peer", func() bool {
		s, ok := net.Score(p)
		return ok && s < 0
	})
}

// storedMessage is the gossip message of v's stored block at height, with
// its objects: byte for byte what the publisher sent.
func storedMessage(t *testing.T, s *ledger.Store, v keys.PublicKey, height uint64) []byte {
	t.Helper()
	b, err := s.BlockAt(v, height)
	if err != nil {
		t.Fatal(err)
	}
	var objs [][]byte
	for _, l := range wire.Links(b.Block) {
		raw, err := s.Object(l)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, raw)
	}
	msg, err := wire.EncodeBlockMessage(b.Raw, objs)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// appendLoop appends a block on node i of c every interval until stop is
// called; stop returns the height of the last block appended.
func appendLoop(t *testing.T, ctx context.Context, c *nodetest.Cluster, i int, first uint64, interval time.Duration) (stop func() uint64) {
	v := c.Keys[i].Public()
	done := make(chan struct{})
	var last atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := first; ; k += 2 {
			r, err := c.Nodes[i].Append(ctx, recordtest.Anchor(1), nodetest.Transcripts(v, k, 2, 0), nil)
			if err != nil {
				t.Errorf("honest append on node %d: %v", i, err)
				return
			}
			last.Store(r.Block.Height)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return last.Load()
	}
}

// TestAdversaryGossip runs hostile gossip against node 0 of three honest
// validators: first what a node tolerates from a relayer (replays, a
// validator's equivocation), then a block far above its chain from a peer
// that will not serve the chain, then, while validator 1 keeps appending,
// one peer for each kind of invalid message.
func TestAdversaryGossip(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	eve, err := keys.FromURI("//Eve") // signs two chains
	if err != nil {
		t.Fatal(err)
	}
	ferdie, err := keys.FromURI("//Ferdie") // a chain only a liar claims
	if err != nil {
		t.Fatal(err)
	}
	outsider, err := keys.FromURI("//Mallory")
	if err != nil {
		t.Fatal(err)
	}
	c := nodetest.New(t, 3, nodetest.Options{})
	for i := range c.Configs {
		c.Configs[i].Validators = append(c.Configs[i].Validators, eve.Public(), ferdie.Public())
	}
	c.StartAll()
	if err := c.WaitMesh(ctx, 2); err != nil {
		t.Fatal(err)
	}
	v1 := c.Keys[1].Public()
	appendBlocks(t, ctx, c, 1, 0, 2, 2, 0)
	if err := c.WaitHeads(ctx, v1, 1); err != nil {
		t.Fatal(err)
	}
	n0 := c.Nodes[0]
	net0 := n0.Network()
	target := n0.AddrInfo()

	t.Run("replay", func(t *testing.T) {
		// The publisher's message again (gossipsub's seen cache drops it)
		// and the same block without its objects (a new message ID: the
		// store finds the block already stored).
		msg := storedMessage(t, n0.Store(), v1, 0)
		stripped := encodeMessage(t, wire.BlockMessage{Block: decodeMessage(t, msg).Block, Objects: [][]byte{}})
		before := net0.Stats()
		r := newRogue(t, ctx)
		r.connect(t, ctx, target)
		r.publish(t, ctx, msg)
		r.publish(t, ctx, stripped)
		waitFor(t, ctx, "validation of the replayed block", func() bool { return net0.Stats().Ignored > before.Ignored })
		after := net0.Stats()
		if after.Rejected != before.Rejected || after.StoredFromGossip != before.StoredFromGossip || net0.Banned(r.h.ID()) {
			t.Fatalf("a replay was rejected, stored or punished: before %+v, after %+v", before, after)
		}
		if h, err := n0.Store().Head(v1); err != nil || h.Block.Height != 1 {
			t.Fatalf("head of validator 1 after the replay: %+v, %v", h, err)
		}
	})

	t.Run("equivocation", func(t *testing.T) {
		a := foreignChain(t, eve, 0, 1, 2)
		b := foreignChain(t, eve, 500, 1, 2)
		r := newRogue(t, ctx)
		r.connect(t, ctx, target)
		r.publish(t, ctx, a[0])
		r.publish(t, ctx, b[0])
		for _, i := range c.Running() {
			s := c.Nodes[i].Store()
			waitFor(t, ctx, fmt.Sprintf("node %d recording the fork proof", i), func() bool {
				for p, err := range s.ForkProofs() {
					if err == nil && p.Validator == eve.Public() && p.Height == 0 {
						return true
					}
				}
				return false
			})
			if h, err := s.Head(eve.Public()); err != nil || !h.Equivocating {
				t.Errorf("node %d: head of the equivocating validator %+v, %v: not marked", i, h, err)
			}
			if st := c.Nodes[i].Network().Stats(); st.Rejected != 0 || st.Bans != 0 {
				t.Errorf("node %d penalized the messenger of an equivocation: %+v", i, st)
			}
		}
	})

	t.Run("future height", func(t *testing.T) {
		// A validly signed block 4 above a chain the node lacks, from a
		// peer that then serves none of that chain: its claim was a lie.
		chain := foreignChain(t, ferdie, 0, 5, 1)
		r := newRogue(t, ctx)
		r.h.SetStreamHandler(wire.SyncProtocol, respond(func(req *wire.Request) *wire.Response {
			switch {
			case req.Status != nil:
				return &wire.Response{Status: &wire.Status{NetUID: uint64(recordtest.Network.Netuid), Heads: []wire.Head{}, Forks: []codec.Link{}}}
			case req.Blocks != nil:
				return &wire.Response{Blocks: &wire.BlocksResponse{Blocks: [][]byte{}, Objects: [][]byte{}}}
			default:
				return &wire.Response{Objects: &wire.ObjectsResponse{Objects: [][]byte{}}}
			}
		}))
		r.connect(t, ctx, target)
		r.publish(t, ctx, chain[4])
		waitPunished(t, ctx, n0, r.h.ID())
		for _, i := range c.Running() {
			if h, err := c.Nodes[i].Store().Head(ferdie.Public()); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("node %d stored part of a chain nobody served: %+v, %v", i, h, err)
			}
		}
	})

	// From here on, validator 1 appends throughout.
	stop := appendLoop(t, ctx, c, 1, 1000, 50*time.Millisecond)
	honest1 := storedMessage(t, n0.Store(), v1, 1)
	honest0 := storedMessage(t, n0.Store(), v1, 0)
	blk, err := n0.Store().BlockAt(v1, 0)
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeMessage(t, honest0).Objects
	badSig := func(bit int) []byte {
		raw := append([]byte(nil), blk.Raw...)
		raw[len(raw)-1-bit] ^= 0x01 // inside the trailing signature
		return encodeMessage(t, wire.BlockMessage{Block: raw, Objects: objs})
	}
	// Data no node has seen: gossipsub's seen cache spans topics, so a
	// message seen on one topic would be dropped on the other unvalidated.
	stripped1 := encodeMessage(t, wire.BlockMessage{Block: decodeMessage(t, honest1).Block, Objects: [][]byte{}})
	fresh := foreignChain(t, eve, 2000, 1, 2)[0]
	fp, err := record.NewForkProof(decodeMessage(t, fresh).Block, decodeMessage(t, foreignChain(t, eve, 3000, 1, 2)[0]).Block)
	if err != nil {
		t.Fatal(err)
	}
	proof, _, err := fp.Encode()
	if err != nil {
		t.Fatal(err)
	}
	type extraKey struct {
		Block   []byte   `cbor:"block"`
		Objects [][]byte `cbor:"objects"`
		Extra   uint64   `cbor:"extra"`
	}
	extra, err := codec.Marshal(extraKey{Block: blk.Raw, Objects: [][]byte{}, Extra: 1})
	if err != nil {
		t.Fatal(err)
	}
	oversized := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, wire.MaxGossipBytes+1+i) }
	const blocks, forks = false, true
	type message struct {
		forks bool // the topic it goes to
		data  []byte
	}
	for _, tc := range []struct {
		name string
		msgs []message
	}{
		{"malformed", []message{{blocks, []byte("not a block message")}, {blocks, honest1[:len(honest1)/2]}, {blocks, extra}}},
		{"oversized", []message{{blocks, oversized(0)}, {blocks, oversized(1)}, {blocks, oversized(2)}}},
		{"wrong topic", []message{{forks, stripped1}, {forks, fresh}, {blocks, proof}}},
		{"bad signature", []message{{blocks, badSig(0)}, {blocks, badSig(9)}, {blocks, badSig(40)}}},
		{"unknown validator", func() []message {
			var out []message
			for _, m := range foreignChain(t, outsider, 0, 3, 1) {
				out = append(out, message{blocks, m})
			}
			return out
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := net0.Stats()
			r, forksTopic := newHostile(t, ctx, 2<<20)
			r.connect(t, ctx, target)
			for _, m := range tc.msgs {
				topic := r.blocks
				if m.forks {
					topic = forksTopic
				}
				if err := topic.Publish(ctx, m.data); err != nil {
					t.Fatal(err)
				}
			}
			waitPunished(t, ctx, n0, r.h.ID())
			// The third rejection bans from inside the validator, just
			// before the rejection is counted.
			waitFor(t, ctx, "rejection of every message", func() bool {
				return net0.Stats().Rejected-before.Rejected >= int64(len(tc.msgs))
			})
		})
	}

	t.Run("rpc over the size limit", func(t *testing.T) {
		// Gossipsub drops an RPC over 1 MiB when it reads the length,
		// before allocating it, and resets the stream: validation never
		// sees it, so nothing is rejected (and nothing scores the peer:
		// gossipsub reports no event for it).
		before := net0.Stats()
		r, _ := newHostile(t, ctx, 4<<20)
		r.connect(t, ctx, target)
		r.publish(t, ctx, bytes.Repeat([]byte{0xff}, 2<<20))
		time.Sleep(300 * time.Millisecond)
		if after := net0.Stats(); after.Rejected != before.Rejected {
			t.Errorf("an RPC over the limit reached validation: before %+v, after %+v", before, after)
		}
	})

	last := stop()
	for _, i := range c.Running() {
		if err := c.Nodes[i].WaitHead(ctx, v1, last); err != nil {
			t.Fatalf("honest blocks stopped arriving at node %d during the attack: %v", i, err)
		}
	}
	sameChains(t, c, 1, v1)
	for _, i := range c.Running() {
		if _, err := c.Nodes[i].Store().Head(outsider.Public()); err == nil {
			t.Errorf("node %d stored the outsider's chain", i)
		}
		if i == 0 {
			continue
		}
		if st := c.Nodes[i].Network().Stats(); st.Rejected != 0 || st.Bans != 0 {
			t.Errorf("node %d saw invalid messages: they spread past node 0: %+v", i, st)
		}
	}
}

// respond is a sync protocol handler answering each request with answer's
// response.
func respond(answer func(*wire.Request) *wire.Response) network.StreamHandler {
	return func(s network.Stream) {
		defer s.Close()
		br := bufio.NewReader(s)
		size, err := binary.ReadUvarint(br)
		if err != nil || size > wire.MaxRequestBytes {
			return
		}
		data := make([]byte, size)
		if _, err := io.ReadFull(br, data); err != nil {
			return
		}
		req, err := wire.DecodeRequest(data)
		if err != nil {
			return
		}
		out, err := codec.Marshal(answer(req))
		if err != nil {
			return
		}
		s.Write(append(binary.AppendUvarint(nil, uint64(len(out))), out...))
	}
}

// openSync opens a sync stream from h to p and writes frame (the whole
// request, or a part of it) without closing the write side.
func openSync(ctx context.Context, h host.Host, p peer.ID, frame []byte) (network.Stream, error) {
	s, err := h.NewStream(ctx, p, wire.SyncProtocol)
	if err != nil {
		return nil, err
	}
	if _, err := s.Write(frame); err != nil {
		s.Reset()
		return nil, err
	}
	return s, nil
}

func frame(t *testing.T, req *wire.Request) []byte {
	t.Helper()
	data, err := codec.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.AppendUvarint(nil, uint64(len(data))), data...)
}

// readResponse reads and decodes one response frame.
func readResponse(s network.Stream) (*wire.Response, error) {
	br := bufio.NewReader(s)
	size, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, err
	}
	if size > wire.MaxResponseBytes {
		return nil, fmt.Errorf("response frame of %d bytes", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, err
	}
	return wire.DecodeResponse(data)
}

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestAdversarySyncFlood attacks node 0's sync responder with three
// peers: one opens streams, asks for the whole of a 2.4 MB chain and never
// reads the answer; one opens streams, announces a 1 MiB request and never
// sends it; one floods requests as fast as it can. The node's heap stays
// within p2p.MaxResponseMemory of where it started while they hold every
// stream they can, honest blocks keep flowing both ways, and each attacker
// ends banned, disconnected and scored below zero.
//
// Not parallel: the heap measure must not see other tests' nodes.
func TestAdversarySyncFlood(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 2, nodetest.Options{})
	c.StartAll()
	if err := c.WaitMesh(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v0, v1 := c.Keys[0].Public(), c.Keys[1].Public()
	appendBlocks(t, ctx, c, 0, 0, 3, 2, 400_000) // ~2.4 MB: one response holds it all
	appendBlocks(t, ctx, c, 1, 0, 1, 2, 0)
	if err := c.WaitHeads(ctx, v0, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHeads(ctx, v1, 0); err != nil {
		t.Fatal(err)
	}
	n0 := c.Nodes[0]
	target := n0.AddrInfo()
	goroutines := runtime.NumGoroutine()
	heap0 := heapInuse()

	// Attackers 1 and 2 take every stream they can and hold them.
	whole := frame(t, &wire.Request{Blocks: &wire.BlocksRequest{Validator: v0, From: 0, Count: wire.MaxBlocksPerRequest}})
	announce := binary.AppendUvarint(nil, wire.MaxRequestBytes) // a length, and nothing after it
	const held = 100
	type attacker struct {
		r     *rogue
		frame []byte
		done  bool // closes its write side after the frame
	}
	attackers := []*attacker{{newRogue(t, ctx), whole, true}, {newRogue(t, ctx), announce, false}}
	for _, a := range attackers {
		a.r.connect(t, ctx, target)
		for range held {
			s, err := openSync(ctx, a.r.h, target.ID, a.frame)
			if err != nil {
				t.Fatalf("attacker stream: %v", err)
			}
			if a.done {
				s.CloseWrite()
			}
		}
	}
	// Give the node time to answer (or refuse) everything it was sent,
	// watching its heap meanwhile.
	var grown uint64
	for range 8 {
		time.Sleep(250 * time.Millisecond)
		if h := heapInuse(); h > heap0 {
			grown = max(grown, h-heap0)
		}
	}
	t.Logf("heap grew by %.1f MiB while attackers held %d streams each", float64(grown)/(1<<20), held)
	if grown > p2p.MaxResponseMemory {
		t.Errorf("heap grew by %d bytes under the attack, bound %d (p2p.MaxResponseMemory)", grown, p2p.MaxResponseMemory)
	}

	// Attacker 3 floods; honest blocks keep flowing both ways meanwhile.
	flooder := newRogue(t, ctx)
	flooder.connect(t, ctx, target)
	var answered, refused atomic.Int64
	floodStart := time.Now()
	var flood sync.WaitGroup
	req := frame(t, &wire.Request{Blocks: &wire.BlocksRequest{Validator: v1, From: 0, Count: 1}})
	for range 16 {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for range 200 {
				s, err := openSync(ctx, flooder.h, target.ID, req)
				if err != nil {
					return // banned
				}
				s.CloseWrite()
				resp, err := readResponse(s)
				s.Close()
				switch {
				case err != nil:
				case resp.Error != nil:
					refused.Add(1)
				default:
					answered.Add(1)
				}
			}
		}()
	}
	appendBlocks(t, ctx, c, 1, 100, 3, 2, 0)
	appendBlocks(t, ctx, c, 0, 100, 1, 2, 0)
	if err := n0.WaitHead(ctx, v1, 3); err != nil {
		t.Fatalf("honest blocks stopped reaching the attacked node: %v", err)
	}
	if err := c.Nodes[1].WaitHead(ctx, v0, 3); err != nil {
		t.Fatalf("the attacked node's blocks stopped reaching its peer: %v", err)
	}
	waitPunished(t, ctx, n0, flooder.h.ID())
	flood.Wait()
	elapsed := time.Since(floodStart)
	// The responder answers at most the bucket plus its refill.
	if limit := 100 + int64(50*elapsed.Seconds()) + 8; answered.Load() > limit {
		t.Errorf("the flooder got %d answers in %v, over the rate limit's %d", answered.Load(), elapsed, limit)
	}
	t.Logf("flood: %d answered, %d refused in %v before the ban", answered.Load(), refused.Load(), elapsed)

	// Attackers 1 and 2 go on asking as fast as they can: refused (their
	// slots are taken, or, once the node timed their streams out, their
	// rate is spent), they are banned for ignoring the refusals.
	for i, a := range attackers {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 10*p2p.MaxRefusals && !n0.Network().Banned(a.r.h.ID()); k++ {
					s, err := openSync(ctx, a.r.h, target.ID, req)
					if err != nil {
						return
					}
					s.CloseWrite()
					readResponse(s)
					s.Close()
				}
			}()
		}
		wg.Wait()
		waitPunished(t, ctx, n0, a.r.h.ID())
		t.Logf("attacker %d banned (%v)", i+1, time.Since(floodStart))
	}

	// Everything they held is released.
	for _, a := range attackers {
		a.r.h.Close()
	}
	flooder.h.Close()
	waitFor(t, ctx, "goroutines of the attack to end", func() bool { return runtime.NumGoroutine() < goroutines+64 })
	t.Logf("attack over (%v)", time.Since(floodStart))
	if grown := int64(heapInuse()) - int64(heap0); grown > p2p.MaxResponseMemory {
		t.Errorf("heap still %d bytes above the start after the attackers left", grown)
	}
	sameChains(t, c, 0, v0)
	sameChains(t, c, 1, v1)
	if st := c.Nodes[1].Network().Stats(); st.Bans != 0 {
		t.Errorf("the honest node banned someone: %+v", st)
	}
}
