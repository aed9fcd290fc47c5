package epoch

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

// TestCatchUpRevealsWhileItsWindowIsOpen: a commit is taken in one chain
// epoch only. Loop ran epoch 1 at head 20 (tempo 10, settle 1), so its
// commit lies in chain epoch 2 and is due in chain epoch 3. The node then
// stops (or stalls) and runs again at head 31: it is an epoch behind, so
// its first tick only catches up on epoch 2, and the next one, at head
// 40, runs epoch 3 in chain epoch 4. The reveal was due, its window open,
// at the tick of head 31; it must be made there, whatever epoch the node
// is catching up on.
func TestCatchUpRevealsWhileItsWindowIsOpen(t *testing.T) {
	lagAndRestart(t, func(t *testing.T, restart bool) {
		c := newCatchUp(t)
		l := c.epochOneAtHead20(t, restart)
		c.advanceTo(t, 31)
		c.d.tick(c.ctx, l)
		if l.next != 3 {
			t.Fatalf("after the tick at head 31 the next epoch is %d, want 3 (epoch 2 caught up)", l.next)
		}
		if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
			t.Fatalf("weights in effect in chain epoch 3, where epoch 1's commit is due: %+v, %v; want the validator's row revealed", rows, err)
		}
		c.advanceTo(t, 40)
		c.d.tick(c.ctx, l)
		if l.next != 4 {
			t.Fatalf("after the tick at head 40 the next epoch is %d, want 4", l.next)
		}
		if f := c.logs.failed(); len(f) != 0 {
			t.Errorf("epochs reported failed: %v", f)
		}
		// Epoch 3's report counts the reveal the loop made on its way.
		if r := c.reports(); len(r) != 1 || r[0].Epoch != 3 || r[0].Revealed != 1 || len(r[0].Unrevealed) != 0 {
			t.Errorf("reports after epoch 3: %+v; want epoch 3's, with one reveal and none lost", r)
		}
	})
}

// TestCatchUpReportsAClosedRevealWindow: as above, but the node runs again
// only at head 41, in chain epoch 4: the reveal of epoch 1's commit was
// due in chain epoch 3 and can no longer be made. It is not sent (the
// chain would take it for no epoch), and the epoch whose weights are lost
// is reported failed, by number.
func TestCatchUpReportsAClosedRevealWindow(t *testing.T) {
	lagAndRestart(t, func(t *testing.T, restart bool) {
		c := newCatchUp(t)
		l := c.epochOneAtHead20(t, restart)
		c.advanceTo(t, 41)
		self := c.w.keys[0].Public()
		nonce := c.w.chain.Nonce(self)
		for want := uint64(3); want <= 4; want++ { // epochs 2 and 3 caught up
			c.d.tick(c.ctx, l)
			if l.next != want {
				t.Fatalf("after a tick at head 41 the next epoch is %d, want %d", l.next, want)
			}
		}
		if got := c.w.chain.Nonce(self); got != nonce {
			t.Errorf("the node sent %d transactions while catching up; want none (the reveal's window is closed)", got-nonce)
		}
		if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 0 {
			t.Errorf("weights in effect: %+v, %v; want none", rows, err)
		}
		f := c.logs.failed()
		if len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, "epoch 1:") || !strings.Contains(f[0].err, "chain epoch 3") {
			t.Errorf("epochs reported failed: %+v; want epoch 1, its reveal due in chain epoch 3", f)
		}
		// The next epoch run, epoch 4, lists it in its report.
		c.d.tick(c.ctx, l)
		if r := c.reports(); len(r) != 1 || r[0].Epoch != 4 || r[0].Revealed != 0 || !slices.Equal(r[0].Unrevealed, []uint64{1}) {
			t.Errorf("reports: %+v; want epoch 4's, listing epoch 1 unrevealed", r)
		}
	})
}

// lagAndRestart runs f for a node that lagged and for one that restarted.
func lagAndRestart(t *testing.T, f func(t *testing.T, restart bool)) {
	for _, restart := range []bool{false, true} {
		name := "lagging"
		if restart {
			name = "restarted"
		}
		t.Run(name, func(t *testing.T) { f(t, restart) })
	}
}

// catchUp is a one-validator world under commit-reveal (period 1), whose
// window is always complete, and the driver under test.
type catchUp struct {
	ctx  context.Context
	w    *modelWorld
	cfg  Config
	d    *Driver
	logs *failures

	mu   sync.Mutex
	reps []Report
}

// reports returns the reports of the epochs run since the test's setup.
func (c *catchUp) reports() []Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reps)
}

func newCatchUp(t *testing.T) *catchUp {
	t.Helper()
	c := &catchUp{ctx: context.Background(), w: newModelWorld(t, true, 0, []uint64{100}), logs: &failures{}}
	c.cfg = Config{
		Chain: c.w.chain, Store: c.w.store, Key: c.w.keys[0], Champion: c.w.champ,
		StateFile: filepath.Join(t.TempDir(), StateFile), Logger: slog.New(c.logs),
		OnEpoch: func(r Report) {
			c.mu.Lock()
			c.reps = append(c.reps, r)
			c.mu.Unlock()
		},
	}
	return c
}

func (c *catchUp) advanceTo(t *testing.T, n uint64) {
	t.Helper()
	head, err := c.w.chain.Head(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.w.chain.Advance(int(n - head.Number)); err != nil {
		t.Fatal(err)
	}
}

// epochOneAtHead20 starts a driver's loop in chain epoch 0 and ticks it at
// head 20, where it runs epoch 1 and commits in chain epoch 2. With
// restart, a new driver then resumes from the state file the first one
// left, as a restarted node does. c.d is then the driver that goes on, on
// the loop returned.
func (c *catchUp) epochOneAtHead20(t *testing.T, restart bool) *loop {
	t.Helper()
	var err error
	if c.d, err = New(c.cfg); err != nil {
		t.Fatal(err)
	}
	c.advanceTo(t, 9)
	l, err := c.d.start(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.next != 1 {
		t.Fatalf("the loop starts at epoch %d, want 1", l.next)
	}
	c.advanceTo(t, 20)
	c.d.tick(c.ctx, l)
	if l.next != 2 {
		t.Fatalf("after the tick at head 20 the next epoch is %d, want 2", l.next)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 0 {
		t.Fatalf("weights in effect after epoch 1's commit: %+v, %v; want none yet", rows, err)
	}
	if r := c.reports(); len(r) != 1 || !r[0].Committed {
		t.Fatalf("reports after the tick at head 20: %+v; want epoch 1's, with a commit", r)
	}
	c.mu.Lock()
	c.reps = nil
	c.mu.Unlock()
	if !restart {
		return l
	}
	cfg := c.cfg
	cfg.Champion = duel.Side{}
	if c.d, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if l, err = c.d.start(c.ctx); err != nil {
		t.Fatal(err)
	}
	if l.next != 2 {
		t.Fatalf("the restarted loop starts at epoch %d, want 2", l.next)
	}
	return l
}

// failures is a slog.Handler that keeps the "epoch failed" records.
type failures struct {
	mu   sync.Mutex
	recs []failure
}

type failure struct {
	epoch uint64
	err   string
}

func (f *failures) Enabled(context.Context, slog.Level) bool { return true }

func (f *failures) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "epoch failed" {
		return nil
	}
	var rec failure
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "epoch":
			if a.Value.Kind() == slog.KindUint64 {
				rec.epoch = a.Value.Uint64()
			}
		case "err":
			rec.err = a.Value.String()
		}
		return true
	})
	f.mu.Lock()
	f.recs = append(f.recs, rec)
	f.mu.Unlock()
	return nil
}

func (f *failures) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f *failures) WithGroup(string) slog.Handler      { return f }

func (f *failures) failed() []failure {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]failure(nil), f.recs...)
}

// TestRefusedRevealIsSentOncePerChainEpoch: the loop reveals on every
// tick, but a reveal the chain refused is not sent again in the same
// chain epoch (each send costs a fee on subtensor), a restart included;
// it is sent again in the next epoch of its window, and refused there in
// the last, it is dropped and its epoch reported failed.
func TestRefusedRevealIsSentOncePerChainEpoch(t *testing.T) {
	c := newCatchUp(t)
	// The node restarts after epoch 1 with a commit due in chain epochs 2
	// to 3 that the chain holds no commit for: it refuses every reveal.
	bogus := savedReveal{Epoch: 1, From: 2, To: 3, Reveal: chain.Reveal{
		Weights: chain.Weights{UIDs: []uint16{0}, Values: []uint16{chain.MaxWeightValue}}, Salt: []uint16{1},
	}}
	if err := saveState(c.cfg.StateFile, state{Epoch: 1, Champion: c.w.champ, Reveals: []savedReveal{bogus}}); err != nil {
		t.Fatal(err)
	}
	self := c.w.keys[0].Public()
	sent := func() uint64 { return c.w.chain.Nonce(self) }
	run := func(heads ...uint64) {
		t.Helper()
		runFromState(t, c, heads...)
	}
	c.advanceTo(t, 19)
	run(19)
	if sent() != 0 {
		t.Fatalf("%d reveals sent in chain epoch 1, before the window", sent())
	}
	run(20, 21, 25)
	if sent() != 1 {
		t.Fatalf("%d reveals sent in chain epoch 2, want 1", sent())
	}
	run(26, 29) // restarted, still in chain epoch 2
	if sent() != 1 {
		t.Fatalf("after a restart in chain epoch 2, %d reveals sent in it, want 1", sent())
	}
	if f := c.logs.failed(); len(f) != 0 {
		t.Fatalf("epochs reported failed with chain epoch 3 still to come: %+v", f)
	}
	run(30, 31)
	if sent() != 2 {
		t.Fatalf("%d reveals sent by chain epoch 3, want 2", sent())
	}
	f := c.logs.failed()
	if len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, "chain epochs 2 to 3") || !strings.Contains(f[0].err, chain.ErrNoCommit.Error()) {
		t.Fatalf("epochs reported failed: %+v; want epoch 1, refused in the last of chain epochs 2 to 3", f)
	}
	if st, _, err := loadState(c.cfg.StateFile); err != nil || len(st.Reveals) != 0 {
		t.Errorf("state file after the drop: %+v, %v; want no reveal pending", st, err)
	}
}

// TestRefusedCommitmentStillReveals: the commit revealed in an epoch was
// made epochs before, after that epoch's commitment; the chain refusing
// this epoch's commitment (its space spent) leaves this epoch without
// weights, but the earlier commit is still revealed.
func TestRefusedCommitmentStillReveals(t *testing.T) {
	w := newModelWorld(t, true, 0, []uint64{100})
	ctx := context.Background()
	d := w.drivers(t, w.champ)[0]
	if err := w.chain.Advance(tempo + 1); err != nil {
		t.Fatal(err)
	}
	if rep, err := d.Step(ctx, 1); err != nil || !rep.Committed {
		t.Fatalf("epoch 1: committed %v, %v", rep.Committed, err)
	}
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	spendCommitmentSpace(t, w, w.keys[0])
	rep, err := d.Step(ctx, 2)
	if !errors.Is(err, chain.ErrSpaceLimit) {
		t.Fatalf("epoch 2: %v, want the commitment refused for space", err)
	}
	if rep.Revealed != 1 || rep.Committed {
		t.Errorf("epoch 2: revealed %d, committed %v; want epoch 1's commit revealed and no new commit", rep.Revealed, rep.Committed)
	}
	rows, err := w.chain.Weights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.chain.Metagraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	champ, _ := m.Find(w.champ.Hotkey)
	if len(rows) != 1 || len(rows[0].UIDs) != 1 || rows[0].UIDs[0] != champ.UID {
		t.Errorf("weights in effect in chain epoch 2: %+v; want epoch 1's, all to the champion's uid %d", rows, champ.UID)
	}
}

// flakyReveals is a chain whose first reveals fail as a lost connection
// does: the chain never judged them.
type flakyReveals struct {
	chain.Chain
	mu    sync.Mutex
	fails int
	calls int
}

func (f *flakyReveals) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	f.mu.Lock()
	fail := f.fails > 0
	f.fails--
	f.calls++
	f.mu.Unlock()
	if fail {
		return errors.New("chain: connection reset by peer")
	}
	return f.Chain.RevealWeights(ctx, k, r)
}

// flakyAfterEpochOne is newCatchUp's world after epochOneAtHead20, on a
// chain whose next fails reveals fail unjudged.
func flakyAfterEpochOne(t *testing.T, fails int) (*catchUp, *flakyReveals, *loop) {
	t.Helper()
	c := newCatchUp(t)
	flaky := &flakyReveals{Chain: c.w.chain}
	c.cfg.Chain = flaky
	l := c.epochOneAtHead20(t, false)
	flaky.mu.Lock()
	flaky.fails = fails
	flaky.mu.Unlock()
	return c, flaky, l
}

// TestUnjudgedRevealIsSentAgain: a reveal whose call failed before the
// chain judged it (the node's connection lost) was treated as refused, and
// not sent again in its chain epoch, the only one it could be taken in:
// the epoch's weights were lost to one dropped connection. It is now sent
// again on the next tick, in the same chain epoch.
func TestUnjudgedRevealIsSentAgain(t *testing.T) {
	c, _, l := flakyAfterEpochOne(t, 2) // epoch 1's commit is due in chain epoch 3
	c.advanceTo(t, 31)
	c.d.tick(c.ctx, l) // the reveal fails; the tick catches up on epoch 2
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 0 {
		t.Fatalf("weights in effect after two failed reveals: %+v, %v", rows, err)
	}
	c.advanceTo(t, 32)
	c.d.tick(c.ctx, l) // the loop's reveal fails again; Step's, running epoch 3, is taken
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect after the tick at head 32, still in chain epoch 3: %+v, %v; want epoch 1's row revealed", rows, err)
	}
	if f := c.logs.failed(); len(f) != 0 {
		t.Errorf("epochs reported failed: %+v", f)
	}
}

// TestUnjudgedRevealsAreBounded: a reveal that keeps failing unjudged (a
// transaction pool that drops it every time) is not sent on every tick of
// its chain epoch: after maxUnjudged sends it counts as refused, here in
// the last epoch of its window, so it is dropped and reported.
func TestUnjudgedRevealsAreBounded(t *testing.T) {
	c, flaky, l := flakyAfterEpochOne(t, 1000) // epoch 1's commit is due in chain epoch 3
	for h := uint64(31); h < 40; h++ {
		c.advanceTo(t, h)
		c.d.tick(c.ctx, l)
	}
	flaky.mu.Lock()
	calls := flaky.calls
	flaky.mu.Unlock()
	if calls != maxUnjudged {
		t.Errorf("%d reveals sent in chain epoch 3, want %d", calls, maxUnjudged)
	}
	if f := c.logs.failed(); len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, "connection reset") {
		t.Errorf("epochs reported failed: %+v; want epoch 1, its reveal failing unjudged", f)
	}
}

// lostCommitAnswer is a chain whose commits are taken but whose answer is
// lost, as when the connection drops after sending.
type lostCommitAnswer struct{ chain.Chain }

func (l lostCommitAnswer) CommitWeights(ctx context.Context, k *keys.Hotkey, h chain.Hash) error {
	if err := l.Chain.CommitWeights(ctx, k, h); err != nil {
		return err
	}
	return errors.New("chain: connection reset by peer")
}

// TestCommitOfUnknownOutcomeIsRevealed: a commit whose call failed without
// the chain's refusal (here the chain took it and the answer was lost) was
// never revealed, so the chain held a commit whose weights never took
// effect. Its reveal is now scheduled all the same, and made in its epoch;
// the epoch still reports the commit's error.
func TestCommitOfUnknownOutcomeIsRevealed(t *testing.T) {
	c := newCatchUp(t)
	c.cfg.Chain = lostCommitAnswer{c.w.chain}
	d, err := New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.advanceTo(t, 9)
	l, err := d.start(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.advanceTo(t, 20)
	d.tick(c.ctx, l) // epoch 1: its commit, in chain epoch 2, is due in chain epoch 3
	if f := c.logs.failed(); len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, "connection reset") {
		t.Fatalf("epochs reported failed: %+v; want epoch 1, its commit's answer lost", f)
	}
	c.advanceTo(t, 31)
	d.tick(c.ctx, l)
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect in chain epoch 3: %+v, %v; want epoch 1's row revealed", rows, err)
	}
}
