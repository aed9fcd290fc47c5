package local

import (
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestMinAllowedWeights: with min_allowed_weights 3 the chain refuses a
// one-uid row, as subtensor's check_length does (WeightVecLengthIsLow),
// takes it padded with zero-valued uids (they count toward the length),
// and takes a single self-weight. Under commit-reveal the short row's
// commit is accepted and its reveal refused: the check is made when the
// row is stored. The params say the minimum, and the refusal keeps its
// identity over HTTP.
func TestMinAllowedWeights(t *testing.T) {
	t.Parallel()
	for _, overHTTP := range []bool{false, true} {
		name := "in-process"
		if overHTTP {
			name = "http"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDevnet(t)
			g := d.genesis
			g.CommitReveal, g.MinAllowedWeights = false, 3
			local := newManual(t, g, "", nil)
			var c chain.Chain = local
			if overHTTP {
				cl, err := Dial(ctx(t), serve(t, local))
				must(t, "dial", err)
				t.Cleanup(func() { cl.Close() })
				c = cl
			}
			p, err := c.Params(ctx(t))
			must(t, "params", err)
			if p.MinAllowedWeights != 3 {
				t.Fatalf("params say min_allowed_weights %d, want 3", p.MinAllowedWeights)
			}
			one := chain.Weights{UIDs: []uint16{2}, Values: []uint16{chain.MaxWeightValue}}
			wantErr(t, "a one-uid row", c.SetWeights(ctx(t), d.alice, one), chain.ErrTooFewWeights)
			if w := weightsOf(t, c, 0); w != nil {
				t.Fatalf("the refused row is in effect: %v", w)
			}
			padded := chain.PadWeights(one, p.MinAllowedWeights, 4)
			must(t, "the padded row", c.SetWeights(ctx(t), d.alice, padded))
			if w := weightsOf(t, c, 0); len(w) != 3 || w[0] != chain.MaxWeightValue || w[1] != 0 || w[2] != 0 {
				t.Fatalf("alice's row in effect: %v, want the winner at 65535 and two zeros", w)
			}
			self := chain.Weights{UIDs: []uint16{1}, Values: []uint16{1}}
			must(t, "bob's self-weight", c.SetWeights(ctx(t), d.bob, self))
		})
	}
}

func TestMinAllowedWeightsAtReveal(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	g := d.genesis
	g.MinAllowedWeights = 3
	c := newManual(t, g, "", nil)
	short := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{chain.MaxWeightValue}}, Salt: []uint16{1}}
	padded := chain.Reveal{Weights: chain.PadWeights(short.Weights, 3, 4), Salt: []uint16{2}}
	for _, r := range []chain.Reveal{short, padded} {
		must(t, "commit", c.CommitWeights(ctx(t), d.alice, chain.CommitHash(d.alice.Public(), g.Netuid, r)))
	}
	must(t, "advance", c.Advance(int(g.Tempo)))
	wantErr(t, "revealing the one-uid row", c.RevealWeights(ctx(t), d.alice, short), chain.ErrTooFewWeights)
	must(t, "revealing the padded row", c.RevealWeights(ctx(t), d.alice, padded))
	if w := weightsOf(t, c, 0); len(w) != 3 {
		t.Fatalf("alice's row in effect: %v, want the padded row", w)
	}
}
