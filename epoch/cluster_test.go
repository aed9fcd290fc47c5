package epoch

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestClusterEpoch runs four validator nodes on loopback, each with its
// own store and an epoch driver as a node service, against one local
// chain: every node records a duel and played transcripts (the liar's
// rewards do not reproduce), gossip spreads the blocks, and when the
// epoch ends the honest nodes commit their checkpoints and set the same
// weights, with the liar at vTrust 0 despite holding the most stake.
func TestClusterEpoch(t *testing.T) {
	w := &world{}
	var err error
	if w.champ, err = keys.FromURI("//Champion"); err != nil {
		t.Fatal(err)
	}
	if w.con, err = keys.FromURI("//Contender"); err != nil {
		t.Fatal(err)
	}
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime, g.CommitReveal = t.Name(), tempo, local.Duration(time.Second), false
	g.Neurons = []local.GenesisNeuron{{Hotkey: w.champ.Public()}, {Hotkey: w.con.Public()}}
	if w.chain, err = local.New(local.Options{Genesis: &g, Manual: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.chain.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	for _, m := range []*keys.Hotkey{w.champ, w.con} {
		f, err := chain.MinerCommitment{Model: "org/model-" + m.Public().String()[:6], Revision: "main", Endpoint: "http://127.0.0.1:1/v1"}.Fields()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.chain.SetCommitment(ctx, m, f); err != nil {
			t.Fatal(err)
		}
	}

	reports := make(chan Report, 16)
	drivers := make([]*Driver, 4)
	cl := nodetest.New(t, 4, nodetest.Options{Tune: func(i int, c *node.Config) {
		d, err := New(Config{Chain: w.chain, Key: c.Key, Champion: duel.Side{Hotkey: w.champ.Public()}, Poll: 20 * time.Millisecond,
			OnEpoch: func(r Report) { reports <- r }})
		if err != nil {
			t.Fatal(err)
		}
		drivers[i] = d
		c.Services = append(c.Services, d)
	}})
	w.keys = cl.Keys
	for i, k := range cl.Keys {
		if _, err := w.chain.Register(k.Public(), stakes[i], true); err != nil {
			t.Fatal(err)
		}
	}
	cl.StartAll()
	if err := cl.WaitMesh(ctx, 3); err != nil {
		t.Fatal(err)
	}
	anchor := recordtest.Anchor(3)
	for i, n := range cl.Nodes {
		var ts []record.Transcript
		for j := range 3 {
			tr, err := verifytest.Transcript(cl.Keys[i].Public(), anchor, "mult8", uint64(j), j, 0)
			if err != nil {
				t.Fatal(err)
			}
			if i == liar && j == 1 {
				tr.Reward++
				tr.TurnRewards[len(tr.TurnRewards)-1]++
			}
			ts = append(ts, tr)
		}
		p := w.result(t, cl.Keys[i].Public(), i == liar)
		if _, err := n.Add(ctx, anchor, append(ts, p.Transcripts...), [][]byte{p.Raw})(); err != nil {
			t.Fatalf("node %d append: %v", i, err)
		}
	}
	for _, k := range cl.Keys {
		if err := cl.WaitHeads(ctx, k.Public(), 0); err != nil {
			t.Fatal(err)
		}
	}
	// The chain moves on, but not into epoch 2: the drivers run epoch 1
	// once past its settle margin (spec/vtrust.md).
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range tempo - 1 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if err := w.chain.Advance(1); err != nil {
				return
			}
		}
	}()

	got := map[keys.PublicKey]Report{}
	byKey := map[keys.PublicKey]int{}
	for i, k := range cl.Keys {
		byKey[k.Public()] = i
	}
	for len(got) < 4 {
		select {
		case r := <-reports:
			if r.Epoch != 1 {
				t.Fatalf("report of epoch %d", r.Epoch)
			}
			got = reportsByDriver(drivers)
		case <-ctx.Done():
			t.Fatalf("%d of 4 epochs reported: %v", len(got), ctx.Err())
		}
	}
	con := w.uid(t, w.con.Public())
	// Each node linked its outcomes from its own chain after its block 0,
	// and committed whatever its head was when the epoch began: let every
	// store catch up with every commitment before checking them.
	for i, d := range drivers {
		rep, _ := d.Last()
		if rep.Commitment == nil {
			t.Fatalf("node %d committed no checkpoint", i)
		}
		if err := cl.WaitHeads(ctx, cl.Keys[i].Public(), rep.Commitment.Height); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range drivers {
		rep, _ := d.Last()
		if i == liar {
			continue
		}
		// The driver records outcomes as peers' blocks arrive, on its own
		// ticks: wait until it has caught up.
		outcomes, faults := 0, 0
		for ctx.Err() == nil {
			outcomes, faults = 0, 0
			for b, err := range cl.Nodes[i].Store().Blocks(cl.Keys[i].Public(), 0) {
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range b.Decisions {
					raw, err := cl.Nodes[i].Store().Object(l.Cid)
					if err != nil {
						t.Fatal(err)
					}
					if o, err := vtrust.DecodeOutcome(raw); err == nil {
						outcomes++
						if o.Verdict == vtrust.Fault && o.Validator == cl.Keys[liar].Public() {
							faults++
						}
					}
				}
			}
			if outcomes >= 9 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if outcomes < 9 || faults != 1 {
			t.Errorf("node %d links %d outcomes (%d faults against the liar), want one per peer transcript (9) and 1 fault", i, outcomes, faults)
		}
		if rep.Weights == nil || len(rep.Weights.UIDs) != 1 || rep.Weights.UIDs[0] != con {
			t.Errorf("node %d set %+v, want all to the contender's uid %d", i, rep.Weights, con)
		}
		for _, tr := range rep.Output.Validators {
			if byKey[tr.Hotkey] == liar && (tr.VTrustPPM != 0 || !tr.HardFault) {
				t.Errorf("node %d: liar at vTrust %d ppm", i, tr.VTrustPPM)
			}
			if byKey[tr.Hotkey] != liar && tr.VTrustPPM < 900_000 {
				t.Errorf("node %d: honest %d at vTrust %d ppm", i, byKey[tr.Hotkey], tr.VTrustPPM)
			}
		}
		checks, err := CheckCommitments(ctx, w.chain, cl.Nodes[i].Store(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(checks) != 4 {
			t.Errorf("node %d checked %d commitments, want 4", i, len(checks))
		}
		for _, c := range checks {
			if !c.OK {
				t.Errorf("node %d flags %d's commitment: %s", i, byKey[c.Validator], c.Reason)
			}
		}
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	honest := 0
	for _, r := range rows {
		if len(r.UIDs) == 1 && r.UIDs[0] == con {
			honest++
		}
	}
	if honest < 3 {
		t.Fatalf("%d weight rows give all to the contender, want the 3 honest ones: %+v", honest, rows)
	}
}

// reportsByDriver collects the drivers' last reports.
func reportsByDriver(ds []*Driver) map[keys.PublicKey]Report {
	out := map[keys.PublicKey]Report{}
	for _, d := range ds {
		if r, ok := d.Last(); ok {
			out[d.cfg.Key.Public()] = r
		}
	}
	return out
}
