package local

import (
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// TestCloneLeavesOriginal: a change of each kind made on a clone leaves
// the state it was cloned from, and another clone of it, as they were
// (the sharing rules of clone.go). The state has what a clone shares:
// pending commits with spare capacity, bonds, a full list of kept states.
func TestCloneLeavesOriginal(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	var calls atomic.Int32
	consensus := stakeConsensus(&calls)
	s := newState(d.genesis)
	call := func(s *state, k *keys.Hotkey, c Call) error {
		c.Netuid = s.Genesis.Netuid
		return s.apply(Tx{Hotkey: k.Public(), Nonce: s.Nonces[k.Public()]}, c)
	}
	advance := func(s *state, n int) {
		for range n {
			s.advance(consensus)
		}
	}
	reveal := func(v uint16) chain.Reveal {
		return chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{v, 1}}, Salt: []uint16{v}}
	}
	commit := func(s *state, k *keys.Hotkey, v uint16) error {
		return call(s, k, Call{Kind: CallCommitWeights, Hash: chain.CommitHash(k.Public(), s.Genesis.Netuid, reveal(v))})
	}
	revealCall := func(s *state, k *keys.Hotkey, v uint16) error {
		r := reveal(v)
		return call(s, k, Call{Kind: CallRevealWeights, Weights: r.Weights, Salt: r.Salt})
	}

	// Epoch 17 at block 175: past keptBoundaries boundaries, with bonds;
	// alice and bob commit three times (capacity 4), then the reveal epoch.
	must(t, "commitment", call(s, d.charlie, Call{Kind: CallSetCommitment, Fields: []chain.Data{chain.Raw([]byte("c"))}}))
	advance(s, 175)
	for v := range uint16(3) {
		must(t, "alice commits", commit(s, d.alice, v+1))
		must(t, "bob commits", commit(s, d.bob, v+1))
	}
	advance(s, 6)
	// The epoch's own clipped them: give them the spare capacity an append
	// leaves.
	for _, n := range s.Neurons[:2] {
		n.Commits = slices.Grow(n.Commits, 4)
	}
	if len(s.Kept) != keptBoundaries || s.Neurons[0].Bonds == nil || cap(s.Neurons[0].Commits) == len(s.Neurons[0].Commits) {
		t.Fatalf("setup: %d kept, bonds %v, commits %d of capacity %d", len(s.Kept), s.Neurons[0].Bonds, len(s.Neurons[0].Commits), cap(s.Neurons[0].Commits))
	}
	eve := hotkey(t, "//Eve")
	changes := []struct {
		name string
		do   func(*state) error
	}{
		{"set_commitment", func(s *state) error {
			return call(s, d.charlie, Call{Kind: CallSetCommitment, Fields: []chain.Data{chain.Raw([]byte("new"))}})
		}},
		{"commit_weights", func(s *state) error { return commit(s, d.alice, 9) }},
		{"reveal_weights", func(s *state) error { return revealCall(s, d.alice, 2) }},
		{"refused reveal", func(s *state) error {
			if err := revealCall(s, d.bob, 7); err == nil {
				t.Error("a reveal of no commit was accepted")
			}
			return nil
		}},
		{"register", func(s *state) error { _, err := s.register(eve.Public(), 5, true); return err }},
		{"re-register", func(s *state) error { _, err := s.register(d.dave.Public(), 99, true); return err }},
		{"replace", func(s *state) error { return s.replace(2, hotkey(t, "//Ferdie").Public(), 5) }},
		{"epoch", func(s *state) error { advance(s, 10); return nil }},
	}
	before := stateJSON(t, s)
	for _, c := range changes {
		a := s.clone()
		must(t, c.name, c.do(a))
		afterA := stateJSON(t, a)
		if afterA == before {
			t.Errorf("%s changed nothing", c.name)
		}
		// Another clone, whose first commit differs from any above.
		b := s.clone()
		must(t, "another commit", commit(b, d.alice, 100))
		for _, other := range changes {
			must(t, other.name, other.do(b))
		}
		if stateJSON(t, s) != before {
			t.Fatalf("%s on a clone, then every change on another clone, changed the original", c.name)
		}
		if stateJSON(t, a) != afterA {
			t.Fatalf("every change on a clone changed another clone that made %s", c.name)
		}
	}
}

func stateJSON(t *testing.T, s *state) string {
	t.Helper()
	b, err := json.Marshal(s)
	must(t, "marshal", err)
	return string(b)
}
