package p2p

import (
	"sort"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// peerTable is what connected peers told us: their binding and which
// heights of which chains they hold. A claim comes from a status or from a
// block the peer forwarded (it stored the block first): a firm claim, which
// the peer must honour. A fork proof the peer forwarded is only a hint (a
// node forwards a proof while still backfilling the chain below it).
// Claims only grow until the peer disconnects or fails to serve them.
type peerTable struct {
	mu sync.Mutex
	m  map[peer.ID]*peerState
}

type peerState struct {
	binding *wire.Binding
	// genesis is the chain the peer's last status named, nil if none.
	genesis  *record.Hash
	claims   map[keys.PublicKey]claim
	statusAt time.Time
	// otherFork are the validators whose chain, as the peer holds it,
	// forks from ours: a store never changes the fork it holds, so its
	// claims on them are ignored rather than backfilled again and again.
	otherFork map[keys.PublicKey]bool
}

type claim struct {
	height uint64
	firm   bool // from a status or a forwarded block, not only a fork proof
}

func newPeerTable() *peerTable { return &peerTable{m: map[peer.ID]*peerState{}} }

func (t *peerTable) get(p peer.ID) *peerState {
	s, ok := t.m[p]
	if !ok {
		s = &peerState{claims: map[keys.PublicKey]claim{}, otherFork: map[keys.PublicKey]bool{}}
		t.m[p] = s
	}
	return s
}

// claim records that p holds h.Validator's chain up to h.Height (firmly,
// or as a hint); the caller checked that the validator is in the node's
// set.
func (t *peerTable) claim(p peer.ID, h wire.Head, firm bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.get(p).raise(h, firm)
}

// raise records a claim, within MaxClaimsPerPeer chains. A higher claim
// replaces a lower one; a firm one at the same height firms it up.
func (s *peerState) raise(h wire.Head, firm bool) {
	cur, ok := s.claims[h.Validator]
	switch {
	case s.otherFork[h.Validator]:
	case !ok && len(s.claims) >= MaxClaimsPerPeer:
	case !ok || h.Height > cur.height:
		s.claims[h.Validator] = claim{h.Height, firm}
	case h.Height == cur.height && firm:
		s.claims[h.Validator] = claim{h.Height, true}
	}
}

// setStatus records a status whose binding (if any) was verified, and the
// claims it makes on chains of validators in the node's set.
func (t *peerTable) setStatus(p peer.ID, st *wire.Status, inSet func(keys.PublicKey) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.get(p)
	s.binding = st.Binding
	s.genesis = nil
	if st.Genesis != nil {
		g := record.Hash(*st.Genesis)
		s.genesis = &g
	}
	s.statusAt = time.Now()
	for _, h := range st.Heads {
		if inSet(h.Validator) {
			s.raise(h, true)
		}
	}
}

// genesis is the genesis hash p's last status named, if it named one.
func (t *peerTable) genesis(p peer.ID) (record.Hash, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.m[p]; ok && s.genesis != nil {
		return *s.genesis, true
	}
	return record.Hash{}, false
}

// boundIn reports whether p's last status bound it to a validator that
// inSet holds.
func (t *peerTable) boundIn(p peer.ID, inSet func(keys.PublicKey) bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[p]
	return ok && s.binding != nil && inSet(s.binding.Validator)
}

// sweep forgets every peer that is not connected. A claim can be recorded
// just after its peer disconnected (a status or a gossip message still
// being handled when forget ran); without this, peers that come and go
// under fresh IDs would grow the table for ever.
func (t *peerTable) sweep(connected func(peer.ID) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.m {
		if !connected(p) {
			delete(t.m, p)
		}
	}
}

func (t *peerTable) forget(p peer.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, p)
}

// forked records that p holds another fork of v's chain than ours, within
// MaxClaimsPerPeer validators, and forgets its claim on it.
func (t *peerTable) forked(p peer.ID, v keys.PublicKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.m[p]; ok {
		delete(s.claims, v)
		if len(s.otherFork) < MaxClaimsPerPeer {
			s.otherFork[v] = true
		}
	}
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
// we have (have is meaningful when haveAny), and its claim.
func (t *peerTable) best(v keys.PublicKey, have uint64, haveAny bool, usable func(peer.ID) bool) (peer.ID, claim, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var bestP peer.ID
	var bestC claim
	found := false
	for p, s := range t.m {
		c, ok := s.claims[v]
		if !ok || (haveAny && c.height <= have) || (found && c.height <= bestC.height) || !usable(p) {
			continue
		}
		bestP, bestC, found = p, c, true
	}
	return bestP, bestC, found
}

// PeerInfo describes a connected peer for status output.
type PeerInfo struct {
	ID        peer.ID         `json:"id"`
	Addrs     []string        `json:"addrs"`
	Validator *keys.PublicKey `json:"validator,omitempty"`
	// Genesis is the genesis hash of the chain the peer's last status
	// named; absent while it named none (an observer before its first
	// block) or sent none yet. A connected peer's is this node's, unless
	// this node has no network yet either.
	Genesis *record.Hash `json:"genesis,omitempty"`
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
			info.Genesis = s.genesis
			info.Chains = len(s.claims)
			info.StatusAt = s.statusAt
		}
		n.peers.mu.Unlock()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
