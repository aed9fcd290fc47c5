package p2p

import (
	"sort"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/keys"
)

// peerTable is what connected peers told us: their binding and which
// heights of which chains they hold. A claim comes from a status or from a
// block the peer forwarded (it stored the block first); claims only grow
// until the peer disconnects or fails to serve them.
type peerTable struct {
	mu sync.Mutex
	m  map[peer.ID]*peerState
}

type peerState struct {
	binding  *Binding
	claims   map[keys.PublicKey]uint64
	statusAt time.Time
}

func newPeerTable() *peerTable { return &peerTable{m: map[peer.ID]*peerState{}} }

func (t *peerTable) get(p peer.ID) *peerState {
	s, ok := t.m[p]
	if !ok {
		s = &peerState{claims: map[keys.PublicKey]uint64{}}
		t.m[p] = s
	}
	return s
}

// claim records that p holds h.Validator's chain up to h.Height.
func (t *peerTable) claim(p peer.ID, h Head) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.get(p)
	if cur, ok := s.claims[h.Validator]; !ok || h.Height > cur {
		s.claims[h.Validator] = h.Height
	}
}

// setStatus records a status whose binding (if any) was verified.
func (t *peerTable) setStatus(p peer.ID, st *Status) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.get(p)
	s.binding = st.Binding
	s.statusAt = time.Now()
	for _, h := range st.Heads {
		if cur, ok := s.claims[h.Validator]; !ok || h.Height > cur {
			s.claims[h.Validator] = h.Height
		}
	}
}

func (t *peerTable) forget(p peer.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, p)
}

// drop forgets p's claim on v's chain (it failed to serve it).
func (t *peerTable) drop(p peer.ID, v keys.PublicKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.m[p]; ok {
		delete(s.claims, v)
	}
}

// best returns the usable peer claiming the most of v's chain beyond what
// we have (have is meaningful when haveAny), and its claimed height.
func (t *peerTable) best(v keys.PublicKey, have uint64, haveAny bool, usable func(peer.ID) bool) (peer.ID, uint64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var bestP peer.ID
	var bestH uint64
	found := false
	for p, s := range t.m {
		h, ok := s.claims[v]
		if !ok || (haveAny && h <= have) || (found && h <= bestH) || !usable(p) {
			continue
		}
		bestP, bestH, found = p, h, true
	}
	return bestP, bestH, found
}

// PeerInfo describes a connected peer for status output.
type PeerInfo struct {
	ID        peer.ID         `json:"id"`
	Addrs     []string        `json:"addrs"`
	Validator *keys.PublicKey `json:"validator,omitempty"`
	// Chains is how many validators' chains the peer reported or forwarded.
	Chains   int       `json:"chains"`
	StatusAt time.Time `json:"status_at,omitzero"`
	Banned   bool      `json:"banned,omitempty"`
}

// Peers describes the connected peers, by peer ID.
func (n *Network) Peers() []PeerInfo {
	var out []PeerInfo
	for _, p := range n.host.Network().Peers() {
		info := PeerInfo{ID: p, Banned: n.bans.banned(p)}
		for _, c := range n.host.Network().ConnsToPeer(p) {
			info.Addrs = append(info.Addrs, c.RemoteMultiaddr().String())
		}
		n.peers.mu.Lock()
		if s, ok := n.peers.m[p]; ok {
			if s.binding != nil {
				v := s.binding.Validator
				info.Validator = &v
			}
			info.Chains = len(s.claims)
			info.StatusAt = s.statusAt
		}
		n.peers.mu.Unlock()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
