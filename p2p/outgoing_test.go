package p2p

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

func TestOutgoingSlotsPerPeer(t *testing.T) {
	o := newOutgoing()
	ctx := context.Background()
	p, q := peer.ID("p"), peer.ID("q")
	var releases []func()
	for i := range MaxStreamsPerPeer {
		r, err := o.acquire(ctx, p)
		if err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
		releases = append(releases, r)
	}
	// Another peer is not held up by p's slots.
	rq, err := o.acquire(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	rq()
	// One more to p waits until a slot is released.
	got := make(chan func(), 1)
	go func() {
		r, err := o.acquire(ctx, p)
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	select {
	case <-got:
		t.Fatalf("request %d to one peer went out with %d in flight", MaxStreamsPerPeer+1, MaxStreamsPerPeer)
	case <-time.After(50 * time.Millisecond):
	}
	releases[0]()
	releases[0] = <-got
	// A waiter whose context ends gives up and leaves no trace.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := o.acquire(cctx, p); err == nil {
		t.Fatal("a full peer's slot was taken with an ended context")
	}
	for _, r := range releases {
		r()
	}
	if len(o.m) != 0 {
		t.Fatalf("%d peers left in the table after every release", len(o.m))
	}
}
