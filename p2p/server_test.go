package p2p

import (
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

func TestServingLimits(t *testing.T) {
	l := newServingLimits(1, 3)
	p := peer.ID("p")
	var releases []func()
	for i := range 3 {
		code, release := l.admit(p)
		if code != 0 {
			t.Fatalf("request %d refused with code %d", i, code)
		}
		releases = append(releases, release)
	}
	if code, _ := l.admit(p); code != CodeRateLimited {
		t.Fatalf("request over the burst: code %d, want rate limited", code)
	}
	if code, _ := l.admit(peer.ID("q")); code != 0 {
		t.Fatalf("another peer is limited by p's requests: code %d", code)
	}
	for _, r := range releases {
		r()
	}
	busy := newServingLimits(1000, 1000)
	for range maxStreamsPerPeer {
		if code, _ := busy.admit(p); code != 0 {
			t.Fatalf("code %d", code)
		}
	}
	if code, _ := busy.admit(p); code != CodeBusy {
		t.Fatalf("stream %d of one peer: code %d, want busy", maxStreamsPerPeer+1, code)
	}
}

func TestServeBlocksBudget(t *testing.T) {
	key, _ := keys.FromURI("//Alice")
	// 8 blocks of 3 transcripts of ~600 kB: 14 MB in all.
	s := testChain(t, key, 8, 3, 600_000)
	n := &Network{store: s}
	v := key.Public()
	br, err := n.serveBlocks(&BlocksRequest{Validator: v, From: 2, Count: 8})
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
	if size > ResponseBudget {
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
		want = append(want, Links(b.Block)...)
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
	br, err = n.serveBlocks(&BlocksRequest{Validator: v, From: 8, Count: 1})
	if err != nil || len(br.Blocks) != 0 || len(br.Objects) != 0 {
		t.Fatalf("past the head: %d blocks, %v", len(br.Blocks), err)
	}
	// Objects: in request order, unknown ones skipped.
	first := want[0]
	or, err := n.serveObjects(&ObjectsRequest{CIDs: links([]cid.Cid{codec.Sum([]byte("unknown")), first})})
	if err != nil || len(or.Objects) != 1 || !codec.Sum(or.Objects[0]).Equals(first) {
		t.Fatalf("objects: %d, %v", len(or.Objects), err)
	}
}
