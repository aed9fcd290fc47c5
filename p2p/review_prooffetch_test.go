package p2p

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewRepeatedStatusStartsOneProofFetch: a status listing fork
// proofs the node does not know makes it fetch them from the peer. A peer
// that repeats such a status (each time with other proofs, so none is
// "seen" yet) and never answers the fetch must not make the node start one
// more fetch per status.
func TestReviewRepeatedStatusStartsOneProofFetch(t *testing.T) {
	n := startFresh(t)
	h, _ := stallingPeer(t, n)
	const statuses = 60
	for i := range statuses {
		st := emptyStatus()
		st.Forks = []codec.Link{codec.LinkTo(codec.Sum(fmt.Appendf(nil, "proof %d", i)))}
		askStatus(t, h, n, st)
	}
	// Each status started its fetch before it was answered.
	if got := goroutinesIn("p2p.(*proofs).fetch("); got > 1 {
		t.Fatalf("%d statuses listing unknown fork proofs left %d proof fetches running against one peer, want at most 1", statuses, got)
	}
}

// TestReviewProofFetchChecksAsItGoes: a status may list 1,024 fork proofs,
// and the node fetched every one before decoding any: a peer listing the
// CIDs of garbage of a proof's size each made the node take in and hold
// 1,024 × 513 KiB (538 MB) before it found the first one bad. A proof is
// checked once at most a response's worth of them has arrived.
func TestReviewProofFetchChecksAsItGoes(t *testing.T) {
	n := startFresh(t)
	const proofs = 96 // 50 MB of garbage
	blobs := map[cid.Cid][]byte{}
	st := emptyStatus()
	for i := range proofs {
		b := bytes.Repeat([]byte{byte(i)}, record.MaxForkProofBytes)
		c := codec.Sum(b)
		blobs[c] = b
		st.Forks = append(st.Forks, codec.LinkTo(c))
	}
	h, served := objectServer(t, n, blobs)
	offerStatus(t, h, n, st)
	deadline := time.Now().Add(60 * time.Second)
	for !n.Banned(h.ID()) {
		if time.Now().After(deadline) {
			t.Fatalf("a peer serving garbage for its fork proofs was not banned (%d bytes served)", served.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := served.Load(); got > wire.MaxResponseBytes {
		t.Fatalf("the node took %d bytes of garbage fork proofs before banning their sender, want at most one response (%d)", got, wire.MaxResponseBytes)
	}
}

// objectServer is a bare host connected to n answering objects requests
// from blobs as a node would (in request order, within ResponseBudget);
// served counts the object bytes it sent.
func objectServer(t *testing.T, n *Network, blobs map[cid.Cid][]byte) (host.Host, *atomic.Int64) {
	t.Helper()
	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	var served atomic.Int64
	h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) {
		objects := readObjectsRequest(s)
		if objects == nil {
			return
		}
		or := &wire.ObjectsResponse{Objects: [][]byte{}}
		size := 0
		for _, l := range objects.CIDs {
			b, ok := blobs[l.Cid]
			if !ok {
				continue
			}
			if len(or.Objects) > 0 && size+len(b) > wire.ResponseBudget {
				break
			}
			or.Objects = append(or.Objects, b)
			size += len(b)
		}
		out, err := codec.Marshal(wire.Response{Objects: or})
		if err != nil {
			s.Reset()
			return
		}
		served.Add(int64(size))
		wire.WriteFrame(s, out)
		s.Close()
	})
	if err := h.Connect(context.Background(), n.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	return h, &served
}
