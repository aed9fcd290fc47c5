package local

import (
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// recordInputs is a consensus that keeps every epoch's input and returns
// zeros of the right shape, so a test sees what the chain feeds Yuma.
func recordInputs(mu *sync.Mutex, got *[]EpochInput) Consensus {
	return func(in EpochInput) (EpochOutput, error) {
		mu.Lock()
		*got = append(*got, in)
		mu.Unlock()
		n := len(in.Stake)
		out := EpochOutput{ValidatorTrust: make([]uint16, n), Consensus: make([]uint16, n), Incentive: make([]uint16, n), Dividends: make([]uint16, n), Bonds: make([][]uint16, n)}
		for i := range out.Bonds {
			out.Bonds[i] = make([]uint16, n)
		}
		return out, nil
	}
}

// TestReviewRegistrationSetsLastUpdate: subtensor's append_neuron
// (pallets/subtensor/src/subnets/uids.rs) sets a new uid's LastUpdate to
// its registration block, and spec/yuma.md's input table says so
// ("registration sets it too"). The local chain feeds Yuma last_update 0
// for a uid registered at block 5, so once the block passes the activity
// cutoff such a validator is inactive on the local chain but active on
// Bittensor, and consensus differs (active stake, step 1 and 4 of
// spec/yuma.md).
func TestReviewRegistrationSetsLastUpdate(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	var mu sync.Mutex
	var inputs []EpochInput
	c := newManual(t, d.genesis, "", recordInputs(&mu, &inputs))
	must(t, "advance", c.Advance(5))
	eve := hotkey(t, "//Eve")
	uid, err := c.Register(eve.Public(), 500, true)
	must(t, "register", err)
	must(t, "advance", c.Advance(5))
	mu.Lock()
	defer mu.Unlock()
	in := inputs[len(inputs)-1]
	if in.Block != 10 || in.RegisteredAt[uid] != 5 {
		t.Fatalf("epoch at block %d, registered at %d", in.Block, in.RegisteredAt[uid])
	}
	if in.LastUpdate[uid] != 5 {
		t.Fatalf("uid %d registered at block 5: last_update fed to consensus is %d, subtensor's is 5", uid, in.LastUpdate[uid])
	}
}

// TestReviewCommitSetsLastUpdate: with commit-reveal on, subtensor sets
// LastUpdate when weights are committed (internal_commit_weights, step 12)
// and not when they are revealed (internal_set_weights sets it only
// "if !get_commit_reveal_weights_enabled"). The local chain does the
// opposite: it leaves last_update alone on commit and sets it to the
// reveal block. Yuma masks W_ij when last_update_i <= reg_j (spec/yuma.md
// step 5), so a miner registered between a validator's commit and its
// reveal gets that validator's weight on the local chain but not on
// Bittensor.
func TestReviewCommitSetsLastUpdate(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	var mu sync.Mutex
	var inputs []EpochInput
	c := newManual(t, d.genesis, "", recordInputs(&mu, &inputs))
	cx := ctx(t)
	must(t, "advance", c.Advance(12))
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}, Salt: []uint16{7}}
	must(t, "commit at block 12", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), d.genesis.Netuid, r)))
	must(t, "advance", c.Advance(9))
	must(t, "reveal at block 21", c.RevealWeights(cx, d.alice, r))
	must(t, "advance", c.Advance(9))
	mu.Lock()
	defer mu.Unlock()
	in := inputs[len(inputs)-1]
	if in.Block != 30 || in.Weights[0][2] == 0 {
		t.Fatalf("epoch at block %d, alice's weight on uid 2 %d", in.Block, in.Weights[0][2])
	}
	if in.LastUpdate[0] != 12 {
		t.Fatalf("alice committed at block 12 and revealed at 21: last_update fed to consensus is %d, subtensor's is 12 (the commit)", in.LastUpdate[0])
	}
}
