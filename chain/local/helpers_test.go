package local

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

func hotkey(t testing.TB, uri string) *keys.Hotkey {
	t.Helper()
	k, err := keys.FromURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// devnet is a small subnet: Alice and Bob validate, Charlie and Dave mine.
type devnet struct {
	alice, bob, charlie, dave *keys.Hotkey
	genesis                   Genesis
}

func newDevnet(t testing.TB) devnet {
	d := devnet{alice: hotkey(t, "//Alice"), bob: hotkey(t, "//Bob"), charlie: hotkey(t, "//Charlie"), dave: hotkey(t, "//Dave")}
	g := DefaultGenesis()
	g.Seed = "test " + t.Name()
	g.Tempo = 10
	g.BlockTime = Duration(100 * time.Millisecond)
	g.Neurons = []GenesisNeuron{
		{Hotkey: d.alice.Public(), Stake: 3000, Validator: true},
		{Hotkey: d.bob.Public(), Stake: 1000, Validator: true},
		{Hotkey: d.charlie.Public(), Stake: 10},
		{Hotkey: d.dave.Public(), Stake: 10},
	}
	d.genesis = g
	return d
}

// stakeConsensus is a consensus for tests, simple enough to check by hand:
// incentive is the stake-weighted column sum of permitted validators'
// weights scaled to 65535; a validator's trust is 65535 if it set weights.
// Bonds count epochs in every cell so that carry-over is visible.
func stakeConsensus(calls *atomic.Int32) Consensus {
	return func(in EpochInput) (EpochOutput, error) {
		calls.Add(1)
		n := len(in.Stake)
		col := make([]uint64, n)
		out := EpochOutput{ValidatorTrust: make([]uint16, n), Consensus: make([]uint16, n), Incentive: make([]uint16, n), Dividends: make([]uint16, n), Bonds: make([][]uint16, n)}
		for i, row := range in.Weights {
			out.Bonds[i] = make([]uint16, n)
			for j := range out.Bonds[i] {
				out.Bonds[i][j] = in.Bonds[i][j] + 1
			}
			if !in.ValidatorPermit[i] {
				continue
			}
			set := false
			for j, w := range row {
				col[j] += in.Stake[i] * uint64(w)
				set = set || w > 0
			}
			if set {
				out.ValidatorTrust[i] = 65535
			}
		}
		copy(out.Incentive, chain.ScaleWeights(col))
		copy(out.Consensus, out.Incentive)
		return out, nil
	}
}

func newManual(t testing.TB, g Genesis, dir string, consensus Consensus) *Chain {
	t.Helper()
	c, err := New(Options{Dir: dir, Genesis: &g, Manual: true, Consensus: consensus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func wantErr(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// advanceTo moves a chain whose head is reachable through head() to block n.
func advanceTo(t testing.TB, c chain.Chain, advance func(int), n uint64) {
	t.Helper()
	h, err := c.Head(ctx(t))
	must(t, "head", err)
	if h.Number > n {
		t.Fatalf("head %d already past %d", h.Number, n)
	}
	if h.Number < n {
		advance(int(n - h.Number))
	}
}

func weightsOf(t testing.TB, c chain.Chain, uid uint16) []uint16 {
	t.Helper()
	rows, err := c.Weights(ctx(t))
	must(t, "weights", err)
	i := slices.IndexFunc(rows, func(r chain.WeightRow) bool { return r.UID == uid })
	if i < 0 {
		return nil
	}
	return rows[i].Values
}
