package node_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
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
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// rogue is a bare libp2p host speaking gossipsub like a node but
// validating nothing: it publishes whatever a test gives it.
type rogue struct {
	h      host.Host
	ps     *pubsub.PubSub
	blocks *pubsub.Topic
}

func newRogue(t *testing.T, ctx context.Context) *rogue {
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
	ps, err := pubsub.NewGossipSub(ctx, h, pubsub.WithNoAuthor(), pubsub.WithMessageIdFn(wire.MessageID))
	if err != nil {
		t.Fatal(err)
	}
	topic, err := ps.Join(wire.BlocksTopic(recordtest.Network.Netuid))
	if err != nil {
		t.Fatal(err)
	}
	return &rogue{h: h, ps: ps, blocks: topic}
}

// connect dials target and waits until target is a peer on the topic.
func (r *rogue) connect(t *testing.T, ctx context.Context, target peer.AddrInfo) {
	t.Helper()
	if err := r.h.Connect(ctx, target); err != nil {
		t.Fatal(err)
	}
	for {
		for _, p := range r.blocks.ListPeers() {
			if p == target.ID {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("rogue: %s never joined the topic", target.ID)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *rogue) publish(t *testing.T, ctx context.Context, data []byte) {
	t.Helper()
	if err := r.blocks.Publish(ctx, data); err != nil {
		t.Fatal(err)
	}
}

// foreignChain writes blocks of key in a store of its own and returns each
// block's gossip message, with its objects.
func foreignChain(t *testing.T, key *keys.Hotkey, first uint64, blocks, per int) [][]byte {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.NewAppender(key)
	if err != nil {
		t.Fatal(err)
	}
	for b := range blocks {
		ts := nodetest.Transcripts(key.Public(), first+uint64(b*per), per, 0)
		if _, err := a.Append(context.Background(), recordtest.Anchor(1), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	var out [][]byte
	for b, err := range s.Blocks(key.Public(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		var objs [][]byte
		for _, c := range wire.Links(b.Block) {
			raw, err := s.Object(c)
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, raw)
		}
		msg, err := wire.EncodeBlockMessage(b.Raw, objs)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msg)
	}
	return out
}

func decodeMessage(t *testing.T, data []byte) wire.BlockMessage {
	t.Helper()
	var m wire.BlockMessage
	if err := codec.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func encodeMessage(t *testing.T, m wire.BlockMessage) []byte {
	t.Helper()
	data, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestMaliciousGossipIsRejectedAndContained(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 5, nodetest.Options{})
	c.StartAll()
	if err := c.WaitMesh(ctx, 4); err != nil {
		t.Fatal(err)
	}
	appendBlocks(t, ctx, c, 1, 0, 1, 2, 0)
	if err := c.WaitHeads(ctx, c.Keys[1].Public(), 0); err != nil {
		t.Fatal(err)
	}

	// Invalid messages: a block of a validator outside the set; an honest
	// block with its signature broken; an honest block with a transcript
	// swapped for another; bytes that are not a message at all.
	outsider, err := keys.FromURI("//Mallory")
	if err != nil {
		t.Fatal(err)
	}
	unknown := foreignChain(t, outsider, 0, 1, 2)[0]
	honest, err := c.Nodes[1].Store().BlockAt(c.Keys[1].Public(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var objs [][]byte
	for _, l := range wire.Links(honest.Block) {
		raw, err := c.Nodes[1].Store().Object(l)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, raw)
	}
	badSig := append([]byte(nil), honest.Raw...)
	badSig[len(badSig)-5] ^= 0x01 // inside the trailing signature
	swapped := [][]byte{objs[1], objs[0]}
	invalid := [][]byte{
		unknown,
		encodeMessage(t, wire.BlockMessage{Block: badSig, Objects: objs}),
		encodeMessage(t, wire.BlockMessage{Block: honest.Raw, Objects: swapped}),
		[]byte("not a block message"),
	}

	r := newRogue(t, ctx)
	target := c.Nodes[0].AddrInfo()
	r.connect(t, ctx, target)
	for _, m := range invalid[:3] {
		r.publish(t, ctx, m)
	}
	net0 := c.Nodes[0].Network()
	for !net0.Banned(r.h.ID()) {
		select {
		case <-ctx.Done():
			t.Fatalf("node 0 never banned the rogue: %+v", net0.Stats())
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The ban comes from the third rejection's strike, just before the
	// validator returns and the rejection is counted: wait for the count.
	for net0.Stats().Rejected < 3 {
		select {
		case <-ctx.Done():
			st := net0.Stats()
			t.Fatalf("node 0 rejected %d messages, want 3: %+v", st.Rejected, st)
		case <-time.After(5 * time.Millisecond):
		}
	}
	// Banned: disconnected, and it cannot come back.
	if err := r.h.Connect(ctx, target); err == nil {
		if r.h.Network().Connectedness(target.ID) == network.Connected {
			// The gater refuses after the handshake; give it a moment.
			time.Sleep(200 * time.Millisecond)
		}
	}
	if r.h.Network().Connectedness(target.ID) == network.Connected {
		t.Error("the banned rogue is still connected to node 0")
	}
	r.blocks.Publish(ctx, invalid[3]) // goes nowhere

	// The honest flow continues and nothing invalid spread.
	appendBlocks(t, ctx, c, 2, 0, 2, 2, 0)
	if err := c.WaitHeads(ctx, c.Keys[2].Public(), 1); err != nil {
		t.Fatal(err)
	}
	for _, i := range c.Running() {
		if _, err := c.Nodes[i].Store().Head(outsider.Public()); err == nil {
			t.Errorf("node %d stored the outsider's chain", i)
		}
		if i == 0 {
			continue
		}
		if st := c.Nodes[i].Network().Stats(); st.Rejected != 0 || st.Bans != 0 {
			t.Errorf("node %d saw invalid messages: they propagated past node 0: %+v", i, st)
		}
	}
	sameChains(t, c, 1, c.Keys[1].Public())
}

func TestEquivocationIsDetectedByAll(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	twoFaced, err := keys.FromURI("//Eve")
	if err != nil {
		t.Fatal(err)
	}
	c := nodetest.New(t, 5, nodetest.Options{Topology: nodetest.Ring(1)})
	for i := range c.Configs {
		c.Configs[i].Validators = append(c.Configs[i].Validators, twoFaced.Public())
	}
	c.StartAll()
	if err := c.WaitMesh(ctx, 2); err != nil {
		t.Fatal(err)
	}
	// Two chains of one key: different transcripts at heights 0 and 1.
	a := foreignChain(t, twoFaced, 0, 2, 2)
	b := foreignChain(t, twoFaced, 1000, 2, 2)
	ra, rb := newRogue(t, ctx), newRogue(t, ctx)
	ra.connect(t, ctx, c.Nodes[0].AddrInfo())
	rb.connect(t, ctx, c.Nodes[2].AddrInfo())
	ra.publish(t, ctx, a[0])
	ra.publish(t, ctx, a[1])
	rb.publish(t, ctx, b[0])

	for _, i := range c.Running() {
		s := c.Nodes[i].Store()
		for {
			h, err := s.Head(twoFaced.Public())
			if err == nil && h.Equivocating {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("node %d never learned of the equivocation (head %+v, %v)", i, h, err)
			case <-c.Nodes[i].Network().Changed():
			case <-time.After(50 * time.Millisecond):
			}
		}
		n := 0
		for p, err := range s.ForkProofs() {
			if err != nil {
				t.Fatal(err)
			}
			if p.Validator != twoFaced.Public() || p.Height != 0 {
				t.Errorf("node %d: fork proof of %s height %d", i, p.Validator.Short(), p.Height)
			}
			n++
		}
		if n == 0 {
			t.Errorf("node %d holds no fork proof", i)
		}
		if st := c.Nodes[i].Network().Stats(); st.Rejected != 0 || st.Bans != 0 {
			t.Errorf("node %d penalized someone for an equivocation it did not commit: %+v", i, st)
		}
	}
}

// TestMaliciousSyncPeerIsBanned serves a node a chain it claims to have,
// with a transcript altered: the node refuses it and bans the server.
func TestMaliciousSyncPeerIsBanned(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := nodetest.New(t, 1, nodetest.Options{Observers: []int{0}})
	n := c.Start(0)
	v, err := keys.FromURI("//Victor")
	if err != nil {
		t.Fatal(err)
	}
	chain := foreignChain(t, v, 0, 1, 2)
	m := decodeMessage(t, chain[0])
	tampered := append([]byte(nil), m.Objects[0]...)
	tampered[len(tampered)-1] ^= 1
	blk, err := record.DecodeBlock(m.Block)
	if err != nil {
		t.Fatal(err)
	}

	r := newRogue(t, ctx)
	r.h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) {
		defer s.Close()
		br := bufio.NewReader(s)
		size, err := binary.ReadUvarint(br)
		if err != nil {
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
		var resp wire.Response
		switch {
		case req.Status != nil:
			resp.Status = &wire.Status{NetUID: uint64(recordtest.Network.Netuid), Heads: []wire.Head{{Validator: v.Public(), Height: blk.Height, CID: codec.LinkTo(codec.Sum(m.Block))}}, Forks: []codec.Link{}}
		case req.Blocks != nil:
			resp.Blocks = &wire.BlocksResponse{Blocks: [][]byte{m.Block}, Objects: [][]byte{tampered, m.Objects[1]}}
		default:
			resp.Objects = &wire.ObjectsResponse{Objects: [][]byte{}}
		}
		out, err := codec.Marshal(&resp)
		if err != nil {
			return
		}
		s.Write(append(binary.AppendUvarint(nil, uint64(len(out))), out...))
	})
	if err := r.h.Connect(ctx, n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	for !n.Network().Banned(r.h.ID()) {
		select {
		case <-ctx.Done():
			t.Fatalf("the node never banned the peer serving altered data: %+v", n.Network().Stats())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := n.Store().Head(v.Public()); err == nil {
		t.Error("the node stored a block served with an altered transcript")
	}
}
