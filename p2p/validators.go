package p2p

import (
	"sync/atomic"

	"github.com/affine-ledger/ledger/keys"
)

// ValidatorSet says whose blocks a node accepts. Blocks and fork proofs of
// validators outside the set are rejected on gossip and not requested by
// sync. The chain integration will supply the metagraph's validators; until
// then a static list or AllValidators.
type ValidatorSet interface {
	Contains(v keys.PublicKey) bool
}

// AllValidators accepts every validator: an observer that replicates
// whatever validly signed chains its peers have.
type AllValidators struct{}

// Contains reports true.
func (AllValidators) Contains(keys.PublicKey) bool { return true }

// StaticSet is a fixed list of validators.
type StaticSet map[keys.PublicKey]struct{}

// NewStaticSet returns the set of vs.
func NewStaticSet(vs ...keys.PublicKey) StaticSet {
	s := make(StaticSet, len(vs))
	for _, v := range vs {
		s[v] = struct{}{}
	}
	return s
}

// Contains reports whether v is in the set.
func (s StaticSet) Contains(v keys.PublicKey) bool {
	_, ok := s[v]
	return ok
}

// ChangingSet is a validator set that follows something outside the node,
// such as the subnet's registered hotkeys on the chain (node.ChainSet).
// A block or proof of a validator it does not hold is ignored, not
// rejected: the forwarder may know of a registration this node has not
// read yet, and must not take a strike for it.
type ChangingSet struct {
	set atomic.Pointer[StaticSet]
}

// NewChangingSet returns an empty set: it holds no validator until Set.
func NewChangingSet() *ChangingSet {
	s := &ChangingSet{}
	empty := StaticSet{}
	s.set.Store(&empty)
	return s
}

// Set replaces the validators.
func (s *ChangingSet) Set(vs ...keys.PublicKey) {
	next := NewStaticSet(vs...)
	s.set.Store(&next)
}

// Contains reports whether v is in the set now.
func (s *ChangingSet) Contains(v keys.PublicKey) bool { return s.set.Load().Contains(v) }

// Len returns the number of validators in the set now.
func (s *ChangingSet) Len() int { return len(*s.set.Load()) }
