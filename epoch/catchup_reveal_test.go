package epoch

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/duel"
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
	for _, restart := range []bool{false, true} {
		name := "lagging"
		if restart {
			name = "restarted"
		}
		t.Run(name, func(t *testing.T) {
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
		})
	}
}

// TestCatchUpReportsAClosedRevealWindow: as above, but the node runs again
// only at head 41, in chain epoch 4: the reveal of epoch 1's commit was
// due in chain epoch 3 and can no longer be made. It is not sent (the
// chain would take it for no epoch), and the epoch whose weights are lost
// is reported failed, by number.
func TestCatchUpReportsAClosedRevealWindow(t *testing.T) {
	for _, restart := range []bool{false, true} {
		name := "lagging"
		if restart {
			name = "restarted"
		}
		t.Run(name, func(t *testing.T) {
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
			if len(f) != 1 || f[0].epoch != 1 || !strings.Contains(f[0].err, "epoch 1") || !strings.Contains(f[0].err, "chain epoch 3") {
				t.Errorf("epochs reported failed: %+v; want epoch 1, its reveal due in chain epoch 3", f)
			}
		})
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
}

func newCatchUp(t *testing.T) *catchUp {
	t.Helper()
	c := &catchUp{ctx: context.Background(), w: newModelWorld(t, true, 0, []uint64{100}), logs: &failures{}}
	c.cfg = Config{
		Chain: c.w.chain, Store: c.w.store, Key: c.w.keys[0], Champion: c.w.champ,
		StateFile: filepath.Join(t.TempDir(), StateFile), Logger: slog.New(c.logs),
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
