package local

import (
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestReplace: a pruned uid goes to a new hotkey with nothing of the old
// neuron's, and the weights set on the uid before the new registration
// count for nothing. (TestCloneLeavesOriginal: the state before is left
// as it was.)
func TestReplace(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	g := d.genesis
	g.CommitReveal = false
	c := newManual(t, g, "", nil) // Yuma
	cx := ctx(t)
	must(t, "advance", c.Advance(1))
	must(t, "charlie commits", c.SetCommitment(cx, d.charlie, []chain.Data{chain.Raw([]byte("model"))}))
	must(t, "alice", c.SetWeights(cx, d.alice, chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{1, 1}}))
	must(t, "bob", c.SetWeights(cx, d.bob, chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}))
	must(t, "advance", c.Advance(9))
	m, _ := c.Metagraph(cx)
	if m.Epoch != 1 || m.Neurons[2].Incentive == 0 {
		t.Fatalf("before the replacement: epoch %d, uid 2's incentive %d", m.Epoch, m.Neurons[2].Incentive)
	}
	eve := hotkey(t, "//Eve")
	must(t, "replace", c.Replace(2, eve.Public(), 42))
	m, _ = c.Metagraph(cx)
	if n := m.Neurons[2]; n.Hotkey != eve.Public() || n.Stake != 42 || n.ValidatorPermit || n.Incentive != 0 || len(m.Neurons) != 4 {
		t.Fatalf("uid 2 after the replacement: %+v of %d neurons", n, len(m.Neurons))
	}
	if _, err := c.Commitment(cx, d.charlie.Public()); !isErr(err, chain.ErrNotFound) {
		t.Fatalf("charlie's commitment after his uid went: %v", err)
	}
	// An epoch later, nobody having set weights again: the rows set before
	// Eve registered are masked for her uid, not for Dave's.
	must(t, "advance", c.Advance(10))
	m, _ = c.Metagraph(cx)
	if m.Epoch != 2 || m.Neurons[2].Incentive != 0 || m.Neurons[3].Incentive == 0 {
		t.Fatalf("epoch %d: incentive of the new uid 2 %d (want 0), of uid 3 %d", m.Epoch, m.Neurons[2].Incentive, m.Neurons[3].Incentive)
	}

	if err := c.Replace(9, hotkey(t, "//Ferdie").Public(), 1); err == nil {
		t.Fatal("replaced uid 9 of 4")
	}
	if err := c.Replace(3, d.bob.Public(), 1); err == nil {
		t.Fatal("bob, registered at uid 1, replaced uid 3")
	}
}
