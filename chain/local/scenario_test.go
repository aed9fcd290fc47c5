package local

import (
	"bytes"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// exercise runs one subnet's life against c, which must be a fresh devnet
// chain (tempo 10, commit-reveal on, reveal period 1) at block 0 whose
// consensus is stakeConsensus(calls). advance produces blocks. The same
// scenario runs in-process and over HTTP.
func exercise(t *testing.T, c chain.Chain, advance func(int), d devnet, calls *atomic.Int32) {
	cx := ctx(t)
	p, err := c.Params(cx)
	must(t, "params", err)
	if p.Tempo != 10 || !p.CommitReveal || p.RevealPeriod != 1 || p.MaxSpace != 3100 || p.Netuid != 1 {
		t.Fatalf("params %+v", p)
	}

	// Registration comes from the genesis, in uid order.
	m, err := c.Metagraph(cx)
	must(t, "metagraph", err)
	if len(m.Neurons) != 4 || m.Neurons[2].Hotkey != d.charlie.Public() || !m.Neurons[1].ValidatorPermit || m.Neurons[3].ValidatorPermit || m.Neurons[0].Stake != 3000 {
		t.Fatalf("metagraph %+v", m)
	}

	// Commitments: one slot per hotkey, overwritten; the block moves.
	hash := bytes.Repeat([]byte{0x42}, 32)
	first, _ := chain.MinerCommitment{Model: "org/a", Revision: "r1", Chute: "c1", ModelHash: hash}.Fields()
	copied, _ := chain.MinerCommitment{Model: "org/b", Revision: "r9", Endpoint: "http://127.0.0.1:1/v1", ModelHash: hash}.Fields()
	second, _ := chain.MinerCommitment{Model: "org/a", Revision: "r2", Chute: "c1"}.Fields()
	must(t, "charlie commits", c.SetCommitment(cx, d.charlie, first))
	got, err := c.Commitment(cx, d.charlie.Public())
	must(t, "read commitment", err)
	if got.Block != 0 || string(got.Fields[0].Bytes) != "lm1:org/a@r1" {
		t.Fatalf("commitment %+v", got)
	}
	advance(1)
	must(t, "dave commits a copy", c.SetCommitment(cx, d.dave, copied))
	advance(1)
	must(t, "charlie overwrites", c.SetCommitment(cx, d.charlie, second))
	all, err := c.Commitments(cx)
	must(t, "commitments", err)
	if len(all) != 2 || all[0].Hotkey != d.dave.Public() || all[0].Block != 1 || all[1].Block != 2 || string(all[1].Fields[0].Bytes) != "lm1:org/a@r2" {
		t.Fatalf("commitments %+v", all)
	}
	if _, err := c.Commitment(cx, d.alice.Public()); !isErr(err, chain.ErrNotFound) {
		t.Fatalf("alice has no commitment: %v", err)
	}
	queue := chain.Contenders(m, all)
	if len(queue) != 2 || queue[0].UID != 3 || queue[1].UID != 2 || queue[0].CopyOf != nil {
		t.Fatalf("contenders %+v", queue)
	}

	// Rate limit: 288 bytes a call against 3100 an epoch.
	big := []chain.Data{chain.Raw(bytes.Repeat([]byte{'x'}, 128)), chain.Raw(bytes.Repeat([]byte{'y'}, 128)), chain.Sha256Field([32]byte{})}
	for i := range 10 {
		must(t, "bob commit", c.SetCommitment(cx, d.bob, big))
		_ = i
	}
	wantErr(t, "11th commitment in epoch 0", c.SetCommitment(cx, d.bob, big), chain.ErrSpaceLimit)
	wantErr(t, "4 fields", c.SetCommitment(cx, d.bob, append(big, chain.Raw(nil))), chain.ErrTooManyFields)
	eve := hotkey(t, "//Eve")
	wantErr(t, "unregistered commitment", c.SetCommitment(cx, eve, second), chain.ErrNotRegistered)
	advanceTo(t, c, advance, 10)
	must(t, "bob commits in epoch 1", c.SetCommitment(cx, d.bob, big))
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d epochs ran by block 10, want 1", n)
	}

	// Commit-reveal: reveal exactly one epoch later, with the right salt.
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{1000, 500}}, Salt: []uint16{1, 2, 3}}
	h := chain.CommitHash(d.alice.Public(), p.Netuid, r)
	must(t, "alice commits", c.CommitWeights(cx, d.alice, h))
	wantErr(t, "reveal in the commit epoch", c.RevealWeights(cx, d.alice, r), chain.ErrRevealTooEarly)
	wantErr(t, "set_weights with commit-reveal on", c.SetWeights(cx, d.alice, r.Weights), chain.ErrCommitRevealOn)
	advanceTo(t, c, advance, 20)
	wrong := r
	wrong.Salt = []uint16{1, 2, 4}
	wantErr(t, "reveal with a wrong salt", c.RevealWeights(cx, d.alice, wrong), chain.ErrCommitMismatch)
	if weightsOf(t, c, 0) != nil {
		t.Fatal("a refused reveal set weights")
	}
	must(t, "alice reveals", c.RevealWeights(cx, d.alice, r))
	if w := weightsOf(t, c, 0); !slices.Equal(w, []uint16{65535, 32768}) {
		t.Fatalf("alice's weights %v, want max-normalized [65535 32768]", w)
	}
	wantErr(t, "second reveal", c.RevealWeights(cx, d.alice, r), chain.ErrNoCommit)
	wantErr(t, "unregistered commit", c.CommitWeights(cx, eve, h), chain.ErrNotRegistered)

	rb := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}, Salt: []uint16{9}}
	must(t, "bob commits", c.CommitWeights(cx, d.bob, chain.CommitHash(d.bob.Public(), p.Netuid, rb)))

	// The epoch at block 30 sees alice's weights.
	advanceTo(t, c, advance, 30)
	m, err = c.Metagraph(cx)
	must(t, "metagraph", err)
	if m.Epoch != 3 || m.EpochBlock != 30 || calls.Load() != 3 {
		t.Fatalf("epoch %d at block %d after %d runs, want 3 at 30 after 3", m.Epoch, m.EpochBlock, calls.Load())
	}
	vt := []uint16{m.Neurons[0].ValidatorTrust, m.Neurons[1].ValidatorTrust}
	inc := []uint16{m.Neurons[0].Incentive, m.Neurons[1].Incentive, m.Neurons[2].Incentive, m.Neurons[3].Incentive}
	if !slices.Equal(vt, []uint16{65535, 0}) || !slices.Equal(inc, []uint16{0, 0, 65535, 32768}) {
		t.Fatalf("vtrust %v incentive %v", vt, inc)
	}

	// Bob's commit (epoch 2) could be revealed in epoch 3 only.
	advanceTo(t, c, advance, 40)
	wantErr(t, "reveal after the reveal epoch", c.RevealWeights(cx, d.bob, rb), chain.ErrRevealExpired)
	if calls.Load() != 4 {
		t.Fatalf("%d epochs by block 40", calls.Load())
	}

	// Block hashes chain from the genesis seed.
	head, err := c.Head(cx)
	must(t, "head", err)
	want := GenesisHash(d.genesis.Seed)
	for n := uint64(1); n <= head.Number; n++ {
		want = NextHash(want, n)
	}
	if head.Number != 40 || head.Hash != want {
		t.Fatalf("head %+v, want 40 %s", head, want)
	}
	h37, err := c.BlockHash(cx, 37)
	must(t, "block 37", err)
	if h37 == head.Hash || h37 == (chain.Hash{}) {
		t.Fatal("block 37 hash")
	}
	if _, err := c.BlockHash(cx, 41); !isErr(err, chain.ErrNotFound) {
		t.Fatalf("block past the head: %v", err)
	}
}
