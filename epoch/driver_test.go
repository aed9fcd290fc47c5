package epoch

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

const tempo = 10

// world is four validators' ledgers in one store (what each node holds
// once gossip has caught up), a local chain with their stakes and two
// miners, and the duel every validator recorded in epoch 1's window.
type world struct {
	store      *ledger.Store
	keys       []*keys.Hotkey
	chain      *local.Chain
	champ, con *keys.Hotkey
}

// stakes: the liar holds the most stake, but less than half.
var stakes = []uint64{100, 100, 250, 100}

func newWorld(t *testing.T, commitReveal bool) *world {
	return newWorldLying(t, commitReveal, true)
}

func newWorldLying(t *testing.T, commitReveal, rewards bool) *world {
	t.Helper()
	w := newBareWorld(t, commitReveal, rewards)
	// Every validator records the duel of the window: the honest ones
	// saw the contender win every challenge, the liar claims the opposite.
	for i := range w.keys {
		w.recordDuel(t, i, recordtest.Anchor(3), i == liar)
	}
	return w
}

func (w *world) result(t *testing.T, v keys.PublicKey, lie bool) verifytest.Duel {
	return w.resultAt(t, v, recordtest.Anchor(3), lie)
}

// resultAt is validator v's result of the champion against the contender,
// played from start.
func (w *world) resultAt(t *testing.T, v keys.PublicKey, start record.Anchor, lie bool) verifytest.Duel {
	t.Helper()
	o := duel.Win
	if lie {
		o = duel.Loss
	}
	return playDuel(t, v, duel.Side{Hotkey: w.champ.Public()}, duel.Side{Hotkey: w.con.Public()}, start, 0, o)
}

// recordDuel appends validator i's result, played from anchor and
// anchored there.
func (w *world) recordDuel(t *testing.T, i int, anchor record.Anchor, lie bool) {
	t.Helper()
	k := w.keys[i]
	p := w.resultAt(t, k.Public(), anchor, lie)
	a, err := w.store.NewAppender(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), anchor, p.Transcripts, [][]byte{p.Raw}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// newBareWorld is the world before any validator recorded a duel.
func newBareWorld(t *testing.T, commitReveal, rewards bool) *world {
	t.Helper()
	s, ks := buildStoreLying(t, 4, rewards)
	w := &world{store: s, keys: ks}
	var err error
	if w.champ, err = keys.FromURI("//Champion"); err != nil {
		t.Fatal(err)
	}
	if w.con, err = keys.FromURI("//Contender"); err != nil {
		t.Fatal(err)
	}
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime, g.CommitReveal, g.RevealPeriod = t.Name(), tempo, local.Duration(time.Second), commitReveal, 1
	for i, k := range ks {
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: stakes[i], Validator: true})
	}
	g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: w.champ.Public()}, local.GenesisNeuron{Hotkey: w.con.Public()})
	if w.chain, err = local.New(local.Options{Genesis: &g, Manual: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.chain.Close() })
	ctx := context.Background()
	for _, m := range []*keys.Hotkey{w.champ, w.con} {
		f, err := chain.MinerCommitment{Model: "org/model-" + m.Public().String()[:6], Revision: "main", Endpoint: "http://127.0.0.1:1/v1"}.Fields()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.chain.SetCommitment(ctx, m, f); err != nil {
			t.Fatal(err)
		}
		if err := w.chain.Advance(1); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) drivers(t *testing.T) []*Driver {
	var ds []*Driver
	for _, k := range w.keys {
		d, err := New(Config{Chain: w.chain, Store: w.store, Key: k, Champion: duel.Side{Hotkey: w.champ.Public()}})
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

func (w *world) uid(t *testing.T, k keys.PublicKey) uint16 {
	m, err := w.chain.Metagraph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n, ok := m.Find(k)
	if !ok {
		t.Fatalf("%s not registered", k)
	}
	return n.UID
}

func TestEpochHonestAgreeLiarZeroed(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	con := w.uid(t, w.con.Public())
	for i, d := range w.drivers(t) {
		rep, err := d.Step(ctx, 1)
		if err != nil {
			t.Fatalf("validator %d: %v", i, err)
		}
		if rep.Output.Champion.Hotkey != w.con.Public() {
			t.Errorf("validator %d: winner %s, want the contender %s", i, rep.Output.Champion.Hotkey, w.con.Public())
		}
		if rep.Weights == nil || len(rep.Weights.UIDs) != 1 || rep.Weights.UIDs[0] != con {
			t.Errorf("validator %d: weights %+v, want all to uid %d", i, rep.Weights, con)
		}
		for _, tr := range rep.Output.Validators {
			isLiar := tr.Hotkey == w.keys[liar].Public()
			if i != liar && isLiar && (tr.VTrustPPM != 0 || !tr.HardFault) {
				t.Errorf("validator %d sees the liar at vTrust %d ppm, hard fault %v", i, tr.VTrustPPM, tr.HardFault)
			}
			if i != liar && !isLiar && tr.VTrustPPM < 900_000 {
				t.Errorf("validator %d sees honest %s at vTrust %d ppm", i, tr.Hotkey, tr.VTrustPPM)
			}
		}
		// The commitment names the validator's head.
		c, err := w.chain.Commitment(ctx, w.keys[i].Public())
		if err != nil {
			t.Fatal(err)
		}
		vc, err := chain.ParseValidatorCommitment(c.Fields)
		if err != nil {
			t.Fatal(err)
		}
		h, err := w.store.Head(w.keys[i].Public())
		if err != nil {
			t.Fatal(err)
		}
		if vc.Height != h.Block.Height || vc.Size != h.Checkpoint.Size || vc.Root != [32]byte(h.Checkpoint.Root) {
			t.Errorf("validator %d committed %+v, head is %d %+v", i, vc, h.Block.Height, h.Checkpoint)
		}
		if d.Champion().Hotkey != w.con.Public() {
			t.Errorf("validator %d: champion after the epoch is %s", i, d.Champion().Hotkey)
		}
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d weight rows, want 4", len(rows))
	}
	for _, r := range rows {
		if len(r.UIDs) != 1 || r.UIDs[0] != con {
			t.Errorf("uid %d set %v, want all to uid %d", r.UID, r.UIDs, con)
		}
	}
}

func TestEpochCommitReveal(t *testing.T) {
	w := newWorld(t, true)
	ctx := context.Background()
	ds := w.drivers(t)[:1]
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	rep, err := ds[0].Step(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Committed || rep.Revealed != 0 {
		t.Fatalf("epoch 1: committed %v revealed %d, want a commit only", rep.Committed, rep.Revealed)
	}
	if rows, _ := w.chain.Weights(ctx); len(rows) != 0 {
		t.Fatalf("weights in effect before the reveal: %v", rows)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	before, err := w.chain.Commitment(ctx, w.keys[0].Public())
	if err != nil {
		t.Fatal(err)
	}
	rep, err = ds[0].Step(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The ledger did not grow: the commitment is not written again.
	if after, err := w.chain.Commitment(ctx, w.keys[0].Public()); err != nil || after.Block != before.Block {
		t.Fatalf("unchanged checkpoint recommitted: block %d, then %d (%v)", before.Block, after.Block, err)
	}
	if rep.Revealed != 1 {
		t.Fatalf("epoch 2 revealed %d commits, want 1", rep.Revealed)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0].UIDs) != 1 || rows[0].UIDs[0] != w.uid(t, w.con.Public()) {
		t.Fatalf("weights after the reveal: %+v", rows)
	}
}

// TestEpochVoteLiarCannotDethrone: a liar whose transcripts reproduce
// but whose duel result contradicts them keeps a vTrust below the honest
// validators' and, holding less than half the stake, does not change the
// winner.
func TestEpochVoteLiarCannotDethrone(t *testing.T) {
	w := newWorldLying(t, false, false)
	ctx := context.Background()
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	for i, d := range w.drivers(t) {
		rep, err := d.Step(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Output.Champion.Hotkey != w.con.Public() {
			t.Errorf("validator %d: winner %s, want the contender", i, rep.Output.Champion.Hotkey)
		}
		var liarTrust, honestMin uint32 = 0, 1 << 31
		for _, tr := range rep.Output.Validators {
			if tr.HardFault {
				t.Errorf("validator %d: %s hard-faulted, but every transcript reproduces", i, tr.Hotkey)
			}
			if tr.Hotkey == w.keys[liar].Public() {
				liarTrust = tr.VTrustPPM
			} else {
				honestMin = min(honestMin, tr.VTrustPPM)
			}
		}
		t.Logf("validator %d: vote liar at %d ppm, honest at least %d ppm", i, liarTrust, honestMin)
		if liarTrust >= honestMin {
			t.Errorf("validator %d: the vote liar has vTrust %d ppm, the honest at least %d", i, liarTrust, honestMin)
		}
	}
}
