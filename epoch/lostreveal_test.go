package epoch

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// lostRevealAnswer is a chain that applies the next lose reveals but
// loses their answers, as when the connection drops after sending: the
// driver sees the chain unjudged, and its send again is refused, the
// commit no longer pending.
type lostRevealAnswer struct {
	chain.Chain
	mu   sync.Mutex
	lose int
}

func (l *lostRevealAnswer) RevealWeights(ctx context.Context, k *keys.Hotkey, r chain.Reveal) error {
	if err := l.Chain.RevealWeights(ctx, k, r); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lose == 0 {
		return nil
	}
	l.lose--
	return errors.New("chain: connection reset by peer")
}

// unrevealedFailures are the failures logged for commits dropped
// unrevealed (ErrUnrevealed).
func unrevealedFailures(c *catchUp) []failure {
	var out []failure
	for _, f := range c.logs.failed() {
		if strings.Contains(f.err, ErrUnrevealed.Error()) {
			out = append(out, f)
		}
	}
	return out
}

// revealReports sums the reveals the reports count and lists the epochs
// they report unrevealed.
func revealReports(c *catchUp) (revealed int, unrevealed []uint64) {
	for _, r := range c.reports() {
		revealed += r.Revealed
		unrevealed = append(unrevealed, r.Unrevealed...)
	}
	return revealed, unrevealed
}

// TestAppliedRevealWithLostAnswerIsTaken: the chain took epoch 1's reveal
// but its answer was lost; the driver sent it again in the same chain
// epoch, its only one (reveal period 1), and the chain refused it, the
// commit no longer pending. That refusal in the last epoch of the window
// dropped the reveal and reported epoch 1 unrevealed, though its weights
// took effect. The chain's row for the validator's uid, the reveal's
// weights, and the commit gone say the earlier send was applied: it
// counts as taken.
func TestAppliedRevealWithLostAnswerIsTaken(t *testing.T) {
	c := newCatchUp(t)
	lost := &lostRevealAnswer{Chain: c.w.chain}
	c.cfg.Chain = lost
	l := c.epochOneAtHead20(t, false) // its commit is due in chain epoch 3
	lost.mu.Lock()
	lost.lose = 1
	lost.mu.Unlock()
	for _, h := range []uint64{31, 32, 40} {
		c.advanceTo(t, h)
		c.d.tick(c.ctx, l)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect: %+v, %v; want epoch 1's row", rows, err)
	}
	if f := unrevealedFailures(c); len(f) != 0 {
		t.Errorf("epochs reported unrevealed: %+v; epoch 1's reveal took effect", f)
	}
	if revealed, unrevealed := revealReports(c); revealed < 1 || len(unrevealed) != 0 {
		t.Errorf("reports count %d reveals and %v unrevealed; want epoch 1's reveal counted taken", revealed, unrevealed)
	}
}

// TestAppliedRevealOfUnknownCommitIsTaken: as above, but the commit's
// answer was lost too. The chain's last_update of the validator's uid,
// the block of the last commit it took, lies between the heads read
// before and after the commit: that commit was taken, and its reveal by
// the send whose answer was lost.
func TestAppliedRevealOfUnknownCommitIsTaken(t *testing.T) {
	c := newCatchUp(t)
	lost := &lostRevealAnswer{Chain: lostCommitAnswer{c.w.chain}, lose: 1}
	c.cfg.Chain = lost
	d, err := New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.d = d
	c.advanceTo(t, 9)
	l, err := d.start(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []uint64{20, 31, 32} { // epoch 1 commits in chain epoch 2, due in 3
		c.advanceTo(t, h)
		d.tick(c.ctx, l)
	}
	if rows, err := c.w.chain.Weights(c.ctx); err != nil || len(rows) != 1 {
		t.Fatalf("weights in effect: %+v, %v; want epoch 1's row", rows, err)
	}
	if f := unrevealedFailures(c); len(f) != 0 {
		t.Errorf("epochs reported unrevealed: %+v; epoch 1's reveal took effect", f)
	}
}

// revealAt has the validator of c commit r at head block commit and
// reveal it at block reveal, one chain epoch later.
func revealAt(t *testing.T, c *catchUp, r chain.Reveal, commit, reveal uint64) {
	t.Helper()
	k := c.w.keys[0]
	p, err := c.w.chain.Params(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.advanceTo(t, commit)
	if err := c.w.chain.CommitWeights(c.ctx, k, chain.CommitHash(k.Public(), p.Netuid, r)); err != nil {
		t.Fatal(err)
	}
	if reveal == 0 {
		return
	}
	c.advanceTo(t, reveal)
	if err := c.w.chain.RevealWeights(c.ctx, k, r); err != nil {
		t.Fatal(err)
	}
}

// runFromState starts a driver of c from its state file and ticks it at
// each head, running no epoch: only the reveals are under test.
func runFromState(t *testing.T, c *catchUp, heads ...uint64) {
	t.Helper()
	d, err := New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.d = d
	l, err := d.start(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.next = 1000
	for _, h := range heads {
		c.advanceTo(t, h)
		d.tick(c.ctx, l)
	}
}

// twoUIDs is a reveal of weights 2 and 1 on the champion's and the
// contender's uids, which the chain holds as 65535 and 32768.
func twoUIDs(t *testing.T, c *catchUp, salt uint16) chain.Reveal {
	t.Helper()
	m, err := c.w.chain.Metagraph(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	champ, _ := m.Find(c.w.champ.Hotkey)
	con, _ := m.Find(c.w.con.Hotkey)
	return chain.Reveal{Weights: chain.Weights{UIDs: []uint16{champ.UID, con.UID}, Values: []uint16{2, 1}}, Salt: []uint16{salt}}
}

// TestLostRevealAnswerSurvivesRestart: the send whose answer was lost is
// kept in the state file; a node restarted in the reveal's chain epoch
// sends it again, is refused, and counts it taken. The row in effect
// before was the same weights (a reveal the epoch before): what tells is
// the commit gone, not the row.
func TestLostRevealAnswerSurvivesRestart(t *testing.T) {
	c := newCatchUp(t)
	lost := &lostRevealAnswer{Chain: c.w.chain, lose: 1}
	c.cfg.Chain = lost
	revealAt(t, c, twoUIDs(t, c, 1), 4, 10)
	r := twoUIDs(t, c, 2)
	revealAt(t, c, r, 12, 0) // due in chain epoch 2
	saved := savedReveal{Epoch: 1, From: 2, To: 2, Committed: true, CommitFrom: 12, CommitTo: 12, Reveal: r}
	if err := saveState(c.cfg.StateFile, state{Epoch: 1, Champion: c.w.champ, Reveals: []savedReveal{saved}}); err != nil {
		t.Fatal(err)
	}
	runFromState(t, c, 20) // applied, its answer lost
	st, _, err := loadState(c.cfg.StateFile)
	if err != nil || len(st.Reveals) != 1 || st.Reveals[0].Sent != 20 || !st.Reveals[0].Committed || st.Reveals[0].CommitFrom != 12 {
		t.Fatalf("state file after the lost answer: %+v, %v; want the reveal pending, sent at block 20", st.Reveals, err)
	}
	runFromState(t, c, 21) // restarted: sent again, refused
	if f := unrevealedFailures(c); len(f) != 0 {
		t.Errorf("epochs reported unrevealed: %+v; epoch 1's reveal took effect at block 20", f)
	}
	c.d.mu.Lock()
	revealed, unrevealed := c.d.revealed, c.d.unrevealed
	c.d.mu.Unlock()
	if revealed != 1 || len(unrevealed) != 0 {
		t.Errorf("driver counts %d reveals and %v unrevealed for the next report; want epoch 1's taken", revealed, unrevealed)
	}
	if st, _, err := loadState(c.cfg.StateFile); err != nil || len(st.Reveals) != 0 {
		t.Errorf("state file: %+v, %v; want no reveal pending", st.Reveals, err)
	}
}

// TestRefusedRevealAfterLostSendIsReported: a reveal whose first send went
// unjudged and was not applied, then refused for finding no commit, is
// still reported unrevealed when the chain does not show it applied: the
// commit's outcome unknown and the uid's last_update (the block of the
// commit of the reveal before) earlier than the heads read around it,
// though the row in effect, the reveal before's, has the same weights;
// or the commit taken but the row in effect not the reveal's.
func TestRefusedRevealAfterLostSendIsReported(t *testing.T) {
	for _, tc := range []struct {
		name      string
		committed bool
		before    func(*catchUp) chain.Reveal // the row in effect before
	}{
		{"commit of unknown outcome, same row in effect", false, func(c *catchUp) chain.Reveal { return twoUIDs(t, c, 1) }},
		{"commit taken, another row in effect", true, func(c *catchUp) chain.Reveal {
			r := twoUIDs(t, c, 1)
			r.Values = []uint16{1, 2}
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCatchUp(t)
			flaky := &flakyReveals{Chain: c.w.chain, fails: 1}
			c.cfg.Chain = flaky
			revealAt(t, c, tc.before(c), 4, 10)
			// The commit, made between blocks 15 and 16, was not taken.
			saved := savedReveal{Epoch: 1, From: 2, To: 2, Committed: tc.committed, CommitFrom: 15, CommitTo: 16, Reveal: twoUIDs(t, c, 2)}
			if err := saveState(c.cfg.StateFile, state{Epoch: 1, Champion: c.w.champ, Reveals: []savedReveal{saved}}); err != nil {
				t.Fatal(err)
			}
			runFromState(t, c, 20, 21)
			f := unrevealedFailures(c)
			if len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, chain.ErrNoCommit.Error()) {
				t.Fatalf("epochs reported unrevealed: %+v; want epoch 1, its reveal refused for no commit", f)
			}
			rows, err := c.w.chain.Weights(c.ctx)
			if err != nil || len(rows) != 1 || rows[0].LastUpdate != 4 {
				t.Fatalf("rows %+v, %v; want the reveal before's, last_update 4", rows, err)
			}
		})
	}
}

// TestStateFileWithoutSendsReads: a state file written before the sends
// and the commit's outcome were kept reads as none unjudged and a commit
// of unknown outcome.
func TestStateFileWithoutSendsReads(t *testing.T) {
	path := t.TempDir() + "/" + StateFile
	old := `{"epoch": 3, "reveals": [{"epoch": 3, "from": 4, "to": 4, "retry": 0, "reveal": {"uids": [1], "values": [65535], "version_key": 0, "salt": [9]}}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	st, ok, err := loadState(path)
	if err != nil || !ok || len(st.Reveals) != 1 {
		t.Fatalf("old state file: %+v, %v, %v", st, ok, err)
	}
	p := loadReveals(st.Reveals)[0]
	if p.sent != 0 || p.committed || p.commitFrom != 0 || p.commitTo != 0 || p.from != 4 || p.reveal.Salt[0] != 9 {
		t.Fatalf("old reveal read as %+v", p)
	}
	p.sent, p.committed, p.commitFrom, p.commitTo = 41, true, 30, 31
	if got := loadReveals(saveReveals([]pendingReveal{p}))[0]; got.sent != 41 || !got.committed || got.commitFrom != 30 || got.commitTo != 31 {
		t.Fatalf("round trip: %+v", got)
	}
}
