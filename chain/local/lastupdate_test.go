package local

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// TestRegistrationSetsLastUpdate: subtensor's append_neuron
// (pallets/subtensor/src/subnets/uids.rs) sets a new uid's LastUpdate to
// its registration block, as spec/yuma.md's input table says
// ("registration sets it too"). Were it 0, a validator registered after
// the activity cutoff would be inactive on the local chain but active on
// Bittensor, and consensus would differ (spec/yuma.md, steps 1 and 4).
func TestRegistrationSetsLastUpdate(t *testing.T) {
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

// TestCommitSetsLastUpdate: with commit-reveal on, subtensor sets
// LastUpdate when weights are committed (internal_commit_weights, step 12)
// and not when they are revealed (internal_set_weights sets it only
// "if !get_commit_reveal_weights_enabled"). Yuma masks W_ij when
// last_update_i <= reg_j (spec/yuma.md, step 5), so were the reveal's
// block used, a miner registered between a validator's commit and its
// reveal would get that validator's weight on the local chain but not on
// Bittensor.
func TestCommitSetsLastUpdate(t *testing.T) {
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

// TestSetWeightsSetsLastUpdate: with commit-reveal off, set_weights sets
// last_update; a refused set_weights does not.
func TestSetWeightsSetsLastUpdate(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	d.genesis.CommitReveal = false
	var mu sync.Mutex
	var inputs []EpochInput
	c := newManual(t, d.genesis, "", recordInputs(&mu, &inputs))
	cx := ctx(t)
	must(t, "advance", c.Advance(3))
	must(t, "alice sets weights at block 3", c.SetWeights(cx, d.alice, chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}))
	must(t, "advance", c.Advance(4))
	wantErr(t, "charlie, without a permit", c.SetWeights(cx, d.charlie, chain.Weights{UIDs: []uint16{3}, Values: []uint16{1}}), chain.ErrNoPermit)
	must(t, "advance", c.Advance(3))
	mu.Lock()
	defer mu.Unlock()
	if in := inputs[len(inputs)-1]; in.Block != 10 || in.LastUpdate[0] != 3 || in.LastUpdate[2] != 0 {
		t.Fatalf("epoch at block %d: last_update %v, want alice's 3 and charlie's 0", in.Block, in.LastUpdate)
	}
}

// TestFormat2LastUpdate: a format 2 state, whose last_update is that of
// the last weights stored, opens with format 3's (spec/chain.md,
// "Persistence"): a uid registered later than its last stored weights
// gets its registration block, one with a pending commit that commit's
// block; a reveal's block stays.
func TestFormat2LastUpdate(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	c := newManual(t, d.genesis, dir, nil)
	cx := ctx(t)
	must(t, "advance", c.Advance(5))
	eve := hotkey(t, "//Eve")
	_, err := c.Register(eve.Public(), 500, true)
	must(t, "register eve", err)
	must(t, "advance", c.Advance(7))
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}, Salt: []uint16{7}}
	must(t, "alice commits at 12", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), d.genesis.Netuid, r)))
	must(t, "bob commits at 12", c.CommitWeights(cx, d.bob, chain.CommitHash(d.bob.Public(), d.genesis.Netuid, r)))
	must(t, "advance", c.Advance(9))
	must(t, "bob reveals at 21", c.RevealWeights(cx, d.bob, r))
	must(t, "alice commits at 21", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), d.genesis.Netuid, chain.Reveal{Salt: []uint16{1}})))
	must(t, "close", c.Close())

	// Rewrite the state as format 2 would have it: eve and alice stored no
	// weights, bob at his reveal.
	path := filepath.Join(dir, stateFile)
	data, err := os.ReadFile(path)
	must(t, "read", err)
	var st map[string]any
	must(t, "decode", json.Unmarshal(data, &st))
	if st["format"] != float64(3) {
		t.Fatalf("saved as format %v", st["format"])
	}
	st["format"] = 2
	for uid, lu := range map[int]int{0: 0, 1: 21, 4: 0} {
		st["neurons"].([]any)[uid].(map[string]any)["last_update"] = lu
	}
	data, err = json.Marshal(st)
	must(t, "encode", err)
	must(t, "write", os.WriteFile(path, data, 0o600))

	var mu sync.Mutex
	var inputs []EpochInput
	c = newManual(t, d.genesis, dir, recordInputs(&mu, &inputs))
	must(t, "advance", c.Advance(9))
	mu.Lock()
	defer mu.Unlock()
	in := inputs[len(inputs)-1]
	if in.Block != 30 || !slices.Equal(in.LastUpdate, []uint64{21, 21, 0, 0, 5}) {
		t.Fatalf("epoch at block %d: last_update %v, want alice 21 (her pending commit), bob 21 (his reveal), eve 5 (registration)", in.Block, in.LastUpdate)
	}
}

// TestWeightRowsLastUpdate: a weight row read back carries its uid's
// last_update, as subtensor's Weights and LastUpdate read together do, in
// process and over HTTP, at the head and at a kept block: with
// commit-reveal on, the block of the commit, which the reveal leaves;
// with it off, the block of set_weights.
func TestWeightRowsLastUpdate(t *testing.T) {
	t.Parallel()
	for _, overHTTP := range []bool{false, true} {
		name := "in-process"
		if overHTTP {
			name = "http"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDevnet(t)
			open := func(g Genesis) (*Chain, chain.Chain) {
				l := newManual(t, g, "", nil)
				if !overHTTP {
					return l, l
				}
				cl, err := Dial(ctx(t), serve(t, l))
				must(t, "dial", err)
				t.Cleanup(func() { cl.Close() })
				return l, cl
			}
			lastUpdate := func(r chain.Reader, uid uint16) uint64 {
				t.Helper()
				rows, err := r.Weights(ctx(t))
				must(t, "weights", err)
				i := slices.IndexFunc(rows, func(r chain.WeightRow) bool { return r.UID == uid })
				if i < 0 {
					t.Fatalf("no row of uid %d in %+v", uid, rows)
				}
				return rows[i].LastUpdate
			}
			cx := ctx(t)
			l, c := open(d.genesis)
			must(t, "advance", l.Advance(12))
			r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}, Salt: []uint16{7}}
			must(t, "commit at block 12", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), d.genesis.Netuid, r)))
			must(t, "advance", l.Advance(9))
			must(t, "reveal at block 21", c.RevealWeights(cx, d.alice, r))
			if got := lastUpdate(c, 0); got != 12 {
				t.Fatalf("commit-reveal: last_update %d after a commit at 12 and its reveal at 21, want 12", got)
			}
			must(t, "advance", l.Advance(9)) // block 30 begins an epoch: kept
			must(t, "commit at block 30", c.CommitWeights(cx, d.alice, chain.CommitHash(d.alice.Public(), d.genesis.Netuid, chain.Reveal{Salt: []uint16{1}})))
			if got := lastUpdate(c, 0); got != 30 {
				t.Fatalf("last_update %d after a new commit at 30, want 30 (the row in effect is still the one revealed at 21)", got)
			}
			must(t, "advance", l.Advance(1))
			at, err := c.At(cx, 30)
			must(t, "at 30", err)
			if got := lastUpdate(at, 0); got != 30 {
				t.Fatalf("last_update as of block 30: %d, want 30", got)
			}

			g := d.genesis
			g.CommitReveal = false
			l, c = open(g)
			must(t, "advance", l.Advance(3))
			must(t, "set at block 3", c.SetWeights(cx, d.alice, chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}))
			if got := lastUpdate(c, 0); got != 3 {
				t.Fatalf("set_weights at block 3: last_update %d", got)
			}
		})
	}
}
