package p2p

import (
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/time/rate"
)

// maxTrackedPeers bounds the per-peer buckets a responder keeps; past it
// they are all dropped (a reset only refills buckets, so a peer gains at
// most one burst from it).
const maxTrackedPeers = 4096

// servingLimits is the responder's bookkeeping (spec/p2p.md#limits):
// stream slots per peer and in all, held from the moment a stream opens
// until its response is written, so a peer that never sends its request
// or never reads the answer holds only its own few slots; a request rate
// per peer; a budget of refusals per peer, past which it is banned; and the
// bytes of responses held at once.
type servingLimits struct {
	mu       sync.Mutex
	rate     rate.Limit
	burst    int
	requests map[peer.ID]*rate.Limiter
	refusals map[peer.ID]*rate.Limiter
	streams  map[peer.ID]int
	total    int
	outside  int // of total, held by peers outside the validator set
	memory   int
}

func newServingLimits(r rate.Limit, burst int) *servingLimits {
	return &servingLimits{rate: r, burst: burst, requests: map[peer.ID]*rate.Limiter{}, refusals: map[peer.ID]*rate.Limiter{}, streams: map[peer.ID]int{}}
}

// open takes a stream slot for p, a peer bound to a validator of the set
// if inSet; false when p holds MaxStreamsPerPeer (own: the refusal is for
// p's excess), or the node serves MaxStreams, or MaxStreamsOutsideSet to
// peers outside the set and p is one (not p's doing: other peers hold the
// slots).
func (l *servingLimits) open(p peer.ID, inSet bool) (release func(), ok, own bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.streams[p] >= MaxStreamsPerPeer {
		return nil, false, true
	}
	if l.total >= MaxStreams || !inSet && l.outside >= MaxStreamsOutsideSet {
		return nil, false, false
	}
	l.total++
	l.streams[p]++
	if !inSet {
		l.outside++
	}
	return func() {
		l.mu.Lock()
		l.total--
		if !inSet {
			l.outside--
		}
		if l.streams[p]--; l.streams[p] == 0 {
			delete(l.streams, p)
		}
		l.mu.Unlock()
	}, true, false
}

// allow takes a request token of p; false when p is over its rate.
func (l *servingLimits) allow(p peer.ID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bucket(l.requests, p, l.rate, l.burst).Allow()
}

// refuse records that a request of p was refused for its own excess (too
// many streams, too many requests); true once p has ignored more refusals
// than MaxRefusals allows. An honest peer backs off when refused.
func (l *servingLimits) refuse(p peer.ID) (exceeded bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !bucket(l.refusals, p, RefusalRefill, MaxRefusals).Allow()
}

// reserve takes n bytes of response memory; false if that would exceed
// MaxResponseMemory.
func (l *servingLimits) reserve(n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.memory+n > MaxResponseMemory {
		return false
	}
	l.memory += n
	return true
}

// resize turns a reservation of from bytes into one of to bytes; if the
// larger one cannot be had, it gives back from and returns false.
func (l *servingLimits) resize(from, to int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if to > from && l.memory+to-from > MaxResponseMemory {
		l.memory -= from
		return false
	}
	l.memory += to - from
	return true
}

// unreserve gives back n bytes of response memory.
func (l *servingLimits) unreserve(n int) {
	l.mu.Lock()
	l.memory -= n
	l.mu.Unlock()
}

func bucket(m map[peer.ID]*rate.Limiter, p peer.ID, r rate.Limit, burst int) *rate.Limiter {
	lim, ok := m[p]
	if !ok {
		if len(m) >= maxTrackedPeers {
			clear(m)
		}
		lim = rate.NewLimiter(r, burst)
		m[p] = lim
	}
	return lim
}
