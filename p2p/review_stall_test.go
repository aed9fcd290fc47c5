package p2p

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewStallingForwarderIsPenalized: spec/p2p.md#validation step 4
// says a peer that forwards a block without its objects and then does not
// serve them is penalized. One that stalls the objects request holds one
// of the topic's 64 validations for validateTimeout (20 s) and went
// unpunished (a timeout is not misbehavior): 64 such messages every 20 s
// kept every honest block from being validated, at no cost to the
// forwarder. Each such message is now a strike, as a rejected one is: the
// third bans the forwarder.
func TestReviewStallingForwarderIsPenalized(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	n := startFresh(t)
	h, requests := stallingHost(t)
	topic := hostileTopic(t, ctx, h, n)
	// Blocks of three validators, validated at once: three stalls.
	for _, uri := range []string{"//Alice", "//Bob", "//Charlie"} {
		k, _ := keys.FromURI(uri)
		b, err := testChain(t, k, 1, 2, 0).BlockAt(k.Public(), 0)
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
	}
	start := time.Now()
	for n.Stats().Ignored < 3 {
		if ctx.Err() != nil {
			t.Fatalf("the blocks were never validated: %+v", n.Stats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("validation held %v by %d stalled requests", time.Since(start).Round(time.Second), requests.Load())
	if !n.Banned(h.ID()) {
		t.Fatal("a peer that forwarded a block and stalled its objects was not penalized")
	}
}
