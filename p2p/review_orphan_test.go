package p2p

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewNoObjectsFetchedForAnOrphan: a block gossiped without its
// objects, whose parent the node does not hold, is ignored (and the chain
// backfilled) whatever its objects are. The node fetched them from the
// forwarder first: up to record.MaxBlockObjectBytes (64 MiB) per message,
// 64 messages validated at once, held until the store refused the block
// for its missing parent, and no penalty, since an ignored message is no
// fault. (The backfill then fetches the same objects again.)
func TestReviewNoObjectsFetchedForAnOrphan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	alice, _ := keys.FromURI("//Alice")
	// Alice's block 1 links 4 transcripts of about 1 MB.
	theirs := testChain(t, alice, 2, 4, 1_000_000)
	n := startFresh(t)

	h, err := NewHost(newIdentity(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	// It serves objects, and refuses blocks so no backfill muddles the
	// count.
	var served atomic.Int64
	serving := &Network{store: theirs}
	h.SetStreamHandler(wire.SyncProtocol, func(s network.Stream) {
		objects := readObjectsRequest(s)
		if objects == nil {
			return
		}
		or, err := serving.serveObjects(objects)
		if err != nil {
			s.Reset()
			return
		}
		for _, o := range or.Objects {
			served.Add(int64(len(o)))
		}
		out, err := codec.Marshal(wire.Response{Objects: or})
		if err != nil {
			s.Reset()
			return
		}
		wire.WriteFrame(s, out)
		s.Close()
	})
	topic := hostileTopic(t, ctx, h, n)

	b, err := theirs.BlockAt(alice.Public(), 1)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wire.EncodeBlockMessage(b.Raw, [][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	if err := topic.Publish(ctx, msg); err != nil {
		t.Fatal(err)
	}
	for n.Stats().Ignored == 0 {
		if ctx.Err() != nil {
			t.Fatalf("the orphan was never validated: %+v", n.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := served.Load(); got > 0 {
		t.Fatalf("the node fetched %d bytes of objects of a block whose parent it lacks, then ignored it", got)
	}
	if n.Banned(h.ID()) {
		t.Fatal("the forwarder of an orphan was banned")
	}
}
