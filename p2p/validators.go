package p2p

import (
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
