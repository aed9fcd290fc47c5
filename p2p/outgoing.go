package p2p

import (
	"context"
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"
)

// outgoing bounds this node's own sync requests in flight to one peer to
// MaxStreamsPerPeer, what a responder serves one peer at once. Without
// it, a burst of fetches (up to 64 gossip messages validated at once, each
// fetching objects from the forwarder) would open more streams than the
// peer serves, and every refused one, retried, would count against this
// node's refusal budget at the peer: an honest node could get itself
// banned.
type outgoing struct {
	mu sync.Mutex
	m  map[peer.ID]*peerSlots
}

type peerSlots struct {
	slots chan struct{}
	users int // holders and waiters; the entry goes at 0
}

func newOutgoing() *outgoing { return &outgoing{m: map[peer.ID]*peerSlots{}} }

// acquire waits for a slot to p, or for ctx to end.
func (o *outgoing) acquire(ctx context.Context, p peer.ID) (release func(), err error) {
	o.mu.Lock()
	s := o.m[p]
	if s == nil {
		s = &peerSlots{slots: make(chan struct{}, MaxStreamsPerPeer)}
		o.m[p] = s
	}
	s.users++
	o.mu.Unlock()
	select {
	case s.slots <- struct{}{}:
		return func() {
			<-s.slots
			o.leave(p, s)
		}, nil
	case <-ctx.Done():
		o.leave(p, s)
		return nil, ctx.Err()
	}
}

func (o *outgoing) leave(p peer.ID, s *peerSlots) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s.users--; s.users == 0 {
		delete(o.m, p)
	}
}
