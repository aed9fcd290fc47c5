package local

import (
	"fmt"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// BenchmarkSubmit applies set_commitment transactions to a full subnet
// (MaxNeurons validators, each with a weight row over every uid, Yuma's
// bonds, and keptBoundaries kept states), in memory and saved to a
// directory. Each iteration also verifies the transaction's signature
// alone, which Submit does first: ratio_vs_verify is Submit's time over
// that, submit-ns/op Submit alone (ns/op counts signing and verifying).
func BenchmarkSubmit(b *testing.B) {
	for _, where := range []string{"memory", "dir"} {
		b.Run(where, func(b *testing.B) {
			dir := ""
			if where == "dir" {
				dir = b.TempDir()
			}
			c, ks := fullSubnet(b, dir)
			k := ks[0]
			var verify, submit time.Duration
			nonce := c.Nonce(k.Public())
			for b.Loop() {
				tx, err := SignTx(c.GenesisHash(), k, nonce, Call{Kind: CallSetCommitment, Netuid: c.Genesis().Netuid, Fields: []chain.Data{chain.Raw(fmt.Appendf(nil, "n%d", nonce))}})
				if err != nil {
					b.Fatal(err)
				}
				nonce++
				t0 := time.Now()
				if err := tx.Verify(c.GenesisHash()); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := c.Submit(tx); err != nil {
					b.Fatal(err)
				}
				submit += time.Since(t1)
				verify += t1.Sub(t0)
			}
			b.ReportMetric(float64(submit)/float64(verify), "ratio_vs_verify")
			b.ReportMetric(float64(submit.Nanoseconds())/float64(b.N), "submit-ns/op")
		})
	}
}

// BenchmarkClone clones a full subnet's state, as every change does
// (clone.go), against freezing its head for one read (state.snapshot,
// which every read at the head does) in the same iterations:
// ratio_vs_snapshot is clone time over snapshot time.
func BenchmarkClone(b *testing.B) {
	c, _ := fullSubnet(b, "")
	s := c.st
	var clone, snap time.Duration
	for b.Loop() {
		t0 := time.Now()
		s.clone()
		t1 := time.Now()
		s.snapshot()
		snap += time.Since(t1)
		clone += t1.Sub(t0)
	}
	b.ReportMetric(float64(clone)/float64(snap), "ratio_vs_snapshot")
	b.ReportMetric(float64(clone.Nanoseconds())/float64(b.N), "clone-ns/op")
}

// fullSubnet is a chain at its largest: MaxNeurons validators that each
// set weights on every uid, past keptBoundaries epochs of Yuma.
func fullSubnet(b *testing.B, dir string) (*Chain, []*keys.Hotkey) {
	b.Helper()
	g := DefaultGenesis()
	g.Seed = "bench " + b.Name()
	g.Tempo = 2
	g.CommitReveal = false
	g.MaxSpace = 1 << 40
	ks := make([]*keys.Hotkey, MaxNeurons)
	for i := range ks {
		ks[i] = hotkey(b, fmt.Sprintf("//bench/%d", i))
		g.Neurons = append(g.Neurons, GenesisNeuron{Hotkey: ks[i].Public(), Stake: uint64(1000 + i), Validator: true})
	}
	c := newManual(b, g, dir, nil)
	uids := make([]uint16, MaxNeurons)
	values := make([]uint16, MaxNeurons)
	for i := range uids {
		uids[i], values[i] = uint16(i), uint16(i+1)
	}
	cx := ctx(b)
	for _, k := range ks {
		must(b, "set weights", c.SetWeights(cx, k, chain.Weights{UIDs: uids, Values: values}))
	}
	must(b, "advance", c.Advance(int(g.Tempo)*(keptBoundaries+1)))
	if c.EpochError() != "" {
		b.Fatal(c.EpochError())
	}
	return c, ks
}
