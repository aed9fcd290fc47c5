package p2p

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// staticWarnEvery is how often a static peer that stays unreachable is
// logged at WARN again: its first failed dial is, so that an operator
// learns of a mistyped --peer at once, and then often enough to stay in
// view without a line for every dial (a dial is tried every 30 s at most).
const staticWarnEvery = 5 * time.Minute

// staticPeers is what the node knows of its static peers while they are
// not connected: since when, how many dials failed and the last one's
// error. `ledger peers` shows it; keepConnected decides from it when to
// warn. A static peer appears in the status only here, since the status's
// peers are the connected ones.
type staticPeers struct {
	mu sync.Mutex
	m  map[peer.ID]*staticState
}

type staticState struct {
	// since is when the peer was first found not connected, zero while
	// it is connected.
	since    time.Time
	failures int
	lastErr  string
	// warnedAt is when a failed dial was last logged at WARN, zero if
	// none was since the peer was last connected.
	warnedAt time.Time
}

func newStaticPeers() *staticPeers { return &staticPeers{m: map[peer.ID]*staticState{}} }

func (s *staticPeers) state(p peer.ID) *staticState {
	st, ok := s.m[p]
	if !ok {
		st = &staticState{}
		s.m[p] = st
	}
	return st
}

// down records that p is not connected at now, and why when note is not
// empty (a dial is not tried), without counting a failed dial.
func (s *staticPeers) down(p peer.ID, now time.Time, note string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(p)
	if st.since.IsZero() {
		st.since = now
	}
	if note != "" {
		st.lastErr = note
	}
}

// failed records a failed dial of p at now and reports whether to log it
// at WARN: the first failure since p was last connected, then one every
// staticWarnEvery.
func (s *staticPeers) failed(p peer.ID, now time.Time, err error) (warn bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(p)
	if st.since.IsZero() {
		st.since = now
	}
	st.failures++
	st.lastErr = err.Error()
	if st.warnedAt.IsZero() || now.Sub(st.warnedAt) >= staticWarnEvery {
		st.warnedAt = now
		return true
	}
	return false
}

// connected records that p is connected and reports, if a failed dial of
// it was logged at WARN since it was last connected, how long it was not
// connected and how many dials failed meanwhile, for the log to say it
// is back.
func (s *staticPeers) connected(p peer.ID, now time.Time) (after time.Duration, failures int, wasWarned bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[p]
	if !ok {
		return 0, 0, false
	}
	delete(s.m, p)
	return now.Sub(st.since), st.failures, !st.warnedAt.IsZero()
}

// StaticPeerInfo describes a static peer (Config.Peers) that is not
// connected, for status output.
type StaticPeerInfo struct {
	ID    peer.ID  `json:"id"`
	Addrs []string `json:"addrs"`
	// Since is when the node found the peer not connected; zero before
	// its first attempt.
	Since time.Time `json:"since,omitzero"`
	// FailedDials counts the dials that failed since then.
	FailedDials int `json:"failed_dials"`
	// LastError is the last failed dial's error, or why the peer is not
	// dialed; empty before the first dial failed.
	LastError string `json:"last_error,omitempty"`
}

// StaticPeersDown describes the static peers that are not connected, in
// the order they were configured.
func (n *Network) StaticPeersDown() []StaticPeerInfo {
	var out []StaticPeerInfo
	for _, ai := range n.cfg.Peers {
		if n.host.Network().Connectedness(ai.ID) == network.Connected {
			continue
		}
		info := StaticPeerInfo{ID: ai.ID, Addrs: []string{}}
		for _, a := range ai.Addrs {
			info.Addrs = append(info.Addrs, a.String())
		}
		n.static.mu.Lock()
		if st, ok := n.static.m[ai.ID]; ok {
			info.Since, info.FailedDials, info.LastError = st.since, st.failures, st.lastErr
		}
		n.static.mu.Unlock()
		out = append(out, info)
	}
	return out
}
