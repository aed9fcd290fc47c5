package p2p

import (
	"fmt"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

func TestServingLimits(t *testing.T) {
	p, q := peer.ID("p"), peer.ID("q")
	t.Run("streams", func(t *testing.T) {
		l := newServingLimits(1, 1)
		var releases []func()
		for i := range MaxStreamsPerPeer {
			release, ok, _ := l.open(p, true)
			if !ok {
				t.Fatalf("stream %d refused", i)
			}
			releases = append(releases, release)
		}
		if _, ok, own := l.open(p, true); ok || !own {
			t.Fatalf("stream %d of one peer: admitted %v, its own excess %v", MaxStreamsPerPeer+1, ok, own)
		}
		if _, ok, _ := l.open(q, true); !ok {
			t.Fatal("another peer is limited by p's streams")
		}
		releases[0]()
		if _, ok, _ := l.open(p, true); !ok {
			t.Fatal("a released slot was not given back")
		}
		all := newServingLimits(1, 1)
		for i := range MaxStreams {
			if _, ok, _ := all.open(peer.ID(fmt.Sprint(i)), true); !ok {
				t.Fatalf("stream %d in all refused", i)
			}
		}
		// Refused, but not for its own excess: it holds no stream.
		if _, ok, own := all.open(peer.ID("one more"), true); ok || own {
			t.Fatalf("stream %d in all: admitted %v, counted as the peer's excess %v", MaxStreams+1, ok, own)
		}
		outside := newServingLimits(1, 1)
		var first func()
		for i := range MaxStreamsOutsideSet {
			release, ok, _ := outside.open(peer.ID(fmt.Sprint(i)), false)
			if !ok {
				t.Fatalf("stream %d outside the set refused", i)
			}
			if i == 0 {
				first = release
			}
		}
		if _, ok, own := outside.open(peer.ID("one more"), false); ok || own {
			t.Fatalf("stream %d outside the set: admitted %v, counted as the peer's excess %v", MaxStreamsOutsideSet+1, ok, own)
		}
		if _, ok, _ := outside.open(peer.ID("validator"), true); !ok {
			t.Fatal("a peer in the set is refused while others hold the slots outside it")
		}
		first()
		if _, ok, _ := outside.open(peer.ID("one more"), false); !ok {
			t.Fatal("a slot released outside the set was not given back")
		}
	})
	t.Run("rate", func(t *testing.T) {
		l := newServingLimits(1, 3)
		for i := range 3 {
			if !l.allow(p) {
				t.Fatalf("request %d refused", i)
			}
		}
		if l.allow(p) {
			t.Fatal("request over the burst allowed")
		}
		if !l.allow(q) {
			t.Fatal("another peer is limited by p's requests")
		}
	})
	t.Run("refusals", func(t *testing.T) {
		l := newServingLimits(1, 1)
		for i := range MaxRefusals {
			if l.refuse(p) {
				t.Fatalf("refusal %d exceeded the budget of %d", i+1, MaxRefusals)
			}
		}
		if !l.refuse(p) {
			t.Fatalf("refusal %d within the budget of %d", MaxRefusals+1, MaxRefusals)
		}
		if l.refuse(q) {
			t.Fatal("another peer is charged for p's refusals")
		}
	})
	t.Run("memory", func(t *testing.T) {
		l := newServingLimits(1, 1)
		k := MaxResponseMemory / maxResponseBody
		for i := range k {
			if !l.reserve(maxResponseBody) {
				t.Fatalf("reservation %d refused", i)
			}
		}
		if l.reserve(maxResponseBody) {
			t.Fatalf("reservation %d admitted: %d bytes over %d", k+1, (k+1)*maxResponseBody, MaxResponseMemory)
		}
		// A built response keeps only its size.
		if !l.resize(maxResponseBody, 1000) || !l.reserve(maxResponseBody) {
			t.Fatal("shrinking a reservation did not free memory")
		}
		if l.resize(1000, MaxResponseMemory) {
			t.Fatal("growing a reservation past the limit succeeded")
		}
		// The failed resize gave back its 1000 bytes.
		if l.memory != k*maxResponseBody {
			t.Fatalf("%d bytes reserved, want %d", l.memory, k*maxResponseBody)
		}
		for range k {
			l.unreserve(maxResponseBody)
		}
		if l.memory != 0 {
			t.Fatalf("%d bytes reserved after every release", l.memory)
		}
	})
}

func TestServeBlocksBudget(t *testing.T) {
	key, _ := keys.FromURI("//Alice")
	// 8 blocks of 3 transcripts of ~600 kB: 14 MB in all.
	s := testChain(t, key, 8, 3, 600_000)
	n := &Network{store: s}
	v := key.Public()
	br, err := n.serveBlocks(&wire.BlocksRequest{Validator: v, From: 2, Count: 8})
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, b := range br.Blocks {
		size += len(b)
	}
	for _, o := range br.Objects {
		size += len(o)
	}
	if size > wire.ResponseBudget {
		t.Fatalf("response of %d bytes over the budget", size)
	}
	if len(br.Blocks) == 0 || len(br.Blocks) > 5 {
		t.Fatalf("%d blocks", len(br.Blocks))
	}
	// Blocks are consecutive from 2; objects a prefix of their links, with
	// at most the last block's cut short.
	var want []cid.Cid
	for i, raw := range br.Blocks {
		b, err := s.BlockAt(v, 2+uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if !b.CID.Equals(codec.Sum(raw)) {
			t.Fatalf("block %d is not height %d", i, 2+i)
		}
		want = append(want, wire.Links(b.Block)...)
	}
	if len(br.Objects) < len(want)-3 || len(br.Objects) > len(want) {
		t.Fatalf("%d objects for %d blocks linking %d", len(br.Objects), len(br.Blocks), len(want))
	}
	for i, o := range br.Objects {
		if !codec.Sum(o).Equals(want[i]) {
			t.Fatalf("object %d is not the %d-th link", i, i)
		}
	}
	// Past the head: nothing.
	br, err = n.serveBlocks(&wire.BlocksRequest{Validator: v, From: 8, Count: 1})
	if err != nil || len(br.Blocks) != 0 || len(br.Objects) != 0 {
		t.Fatalf("past the head: %d blocks, %v", len(br.Blocks), err)
	}
	// Objects: in request order, unknown ones skipped.
	first := want[0]
	or, err := n.serveObjects(&wire.ObjectsRequest{CIDs: codec.LinksTo([]cid.Cid{codec.Sum([]byte("unknown")), first})})
	if err != nil || len(or.Objects) != 1 || !codec.Sum(or.Objects[0]).Equals(first) {
		t.Fatalf("objects: %d, %v", len(or.Objects), err)
	}
}
