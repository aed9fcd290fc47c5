package local

import (
	"maps"
	"slices"
)

// A change to the chain is made on a clone of its state, which replaces
// the state only once it is saved (spec/chain.md, "Persistence"): a save
// that fails leaves memory as it is on disk. A transaction changes one
// neuron, a block without an epoch none, so a clone shares what changes
// rarely or never:
//
//   - the kept states (snapshot values are never written once kept; the
//     clone has its own list of them);
//   - each neuron, until own copies it for writing. own's copy is shallow:
//     a neuron's slices and the values its pointers point to are never
//     written in place, only replaced or appended to, and own clips the
//     slices' capacity so that an append reallocates.
//
// A clone thus costs a copy of the nonces and of the neuron pointers,
// whatever the weights, bonds and kept states hold (BenchmarkSubmit).

// clone returns a copy of s that may be changed without changing s, as
// long as every neuron is changed through own.
func (s *state) clone() *state {
	c := *s
	c.Nonces = maps.Clone(s.Nonces)
	c.Neurons = slices.Clone(s.Neurons)
	c.Kept = slices.Clone(s.Kept)
	return &c
}

// own returns neuron uid for writing: a copy held by s alone.
func (s *state) own(uid int) *neuron {
	n := *s.Neurons[uid]
	n.Commits = slices.Clip(n.Commits)
	n.Bonds = slices.Clip(n.Bonds)
	s.Neurons[uid] = &n
	return &n
}
