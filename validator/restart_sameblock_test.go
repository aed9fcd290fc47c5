package validator_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/validator"
)

// watchedChain is the test's local chain, with a hook on every head the
// validator reads.
type watchedChain struct {
	*local.Chain
	onHead func(chain.Block)
}

func (c watchedChain) Head(ctx context.Context) (chain.Block, error) {
	b, err := c.Chain.Head(ctx)
	if err == nil {
		c.onHead(b)
	}
	return b, err
}

// advanceOnce returns a head hook that produces one block the first time
// the validator reads block at as the head: the validator must then read
// the head again rather than start a duel at it.
func advanceOnce(t *testing.T, n *testNet, at uint64) (hook func(chain.Block), seen *atomic.Bool) {
	seen = new(atomic.Bool)
	var once sync.Once
	return func(b chain.Block) {
		if b.Number != at {
			return
		}
		once.Do(func() {
			seen.Store(true)
			if err := n.chain.Advance(1); err != nil {
				t.Error(err)
			}
		})
	}, seen
}

// A validator restarted within the chain block of a duel it had begun
// does not start another duel at that block: every challenge counter at a
// start belongs to one duel (spec/validator.md, "A duel", step 2), and a
// second duel there would draw the challenge IDs of the first again for
// the miner they share, which the ledger refuses. Here the first duel was
// stopped with pairs in the ledger and the validator comes back with a
// smaller env set (a new release), so the duel cannot be resumed: it is
// abandoned, and the same two miners are dueled from the next block.
func TestRestartInTheSameBlockAfterAnAbandonedDuel(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.6"}, minerSpec{name: "Cont", strategy: "perfect"})
	dir := t.TempDir()
	s := openStore(t, dir)
	cfg := n.config(s, nil)
	all := fastEnvs(t)
	cfg.Envs, cfg.Rule = all, shortRule()
	ctx, kill := context.WithCancel(testCtx(t, 30*time.Second))
	var mu sync.Mutex
	counted := map[string]bool{}
	var killed validator.Progress
	cfg.Progress = func(p validator.Progress) {
		mu.Lock()
		defer mu.Unlock()
		switch p.Stage {
		case validator.StageStart:
			killed = p
		case validator.StageOutcome:
			// Stopped once every env holds a pair, so that each env
			// dropped below leaves stored challenges behind.
			if counted[p.Env] = true; len(counted) == len(all) {
				kill()
			}
		}
	}
	// No block passes while the validator is down.
	s = stopDuel(t, ctx, n, newValidator(t, cfg), s, dir)
	defer s.Close()
	rec := &recorder{}
	cfg = n.config(s, rec)
	cfg.Envs, cfg.Rule = []envs.Factory{all[0], all[1]}, shortRule()
	hook, advanced := advanceOnce(t, n, killed.Start.Number)
	cfg.Chain = watchedChain{Chain: n.chain, onHead: hook}
	v := newValidator(t, cfg)
	defer v.Close()
	r, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Champ"], n.miners["Cont"])
	if err != nil {
		t.Fatalf("the duel after the restart: %v", err)
	}
	if rec.count(validator.StageAbandoned) != 1 {
		t.Fatalf("%d duels abandoned, want the stopped one", rec.count(validator.StageAbandoned))
	}
	if !advanced.Load() || r.Start.Number <= killed.Start.Number {
		t.Fatalf("the new duel starts at block %d, the abandoned one at %d", r.Start.Number, killed.Start.Number)
	}
	h := v.History()
	if h.Entries[0].ID() == killed.Duel {
		t.Fatalf("the new duel has the abandoned one's ID %s", killed.Duel)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}

// A validator restarted within the chain block at which its last duel
// started (and was recorded) starts the next one, against the same
// champion, at a later block.
func TestRestartInTheSameBlockAfterARecordedDuel(t *testing.T) {
	t.Parallel()
	n := newNet(t,
		minerSpec{name: "Champ", strategy: "perfect", seed: 1},
		minerSpec{name: "A", strategy: "random", seed: 2},
		minerSpec{name: "B", strategy: "random", seed: 3},
	)
	dir := t.TempDir()
	s := openStore(t, dir)
	cfg := n.config(s, nil)
	cfg.Envs, cfg.Rule = fastEnvs(t), shortRule()
	v := newValidator(t, cfg)
	n.advance(t)
	first, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Champ"], n.miners["A"])
	if err != nil || first.Winner != "champion" {
		t.Fatalf("Champ against A: %v %s", err, describe(first))
	}
	v.Close()
	s.Close()
	head, err := n.chain.Head(context.Background())
	if err != nil || head.Number != first.Start.Number {
		t.Fatalf("head %d (%v), the duel started at %d: the chain moved", head.Number, err, first.Start.Number)
	}

	s = openStore(t, dir)
	defer s.Close()
	cfg = n.config(s, nil)
	cfg.Envs, cfg.Rule = fastEnvs(t), shortRule()
	hook, advanced := advanceOnce(t, n, first.Start.Number)
	cfg.Chain = watchedChain{Chain: n.chain, onHead: hook}
	v = newValidator(t, cfg)
	defer v.Close()
	second, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Champ"], n.miners["B"])
	if err != nil {
		t.Fatalf("Champ against B after the restart: %v", err)
	}
	if !advanced.Load() || second.Start.Number <= first.Start.Number {
		t.Fatalf("the second duel starts at block %d, the first at %d", second.Start.Number, first.Start.Number)
	}
	v.Close()
	audit(t, s, n.key.Public(), v.History())
}

// A validator restarted within the chain block of a duel it had begun,
// with pairs in the ledger, resumes it there: same start, same duel ID,
// without waiting for a block.
func TestRestartInTheSameBlockResumes(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "noisy:0.6"}, minerSpec{name: "Cont", strategy: "perfect"})
	dir := t.TempDir()
	s := openStore(t, dir)
	cfg := n.config(s, nil)
	cfg.Envs, cfg.Rule = fastEnvs(t), shortRule()
	ctx, kill := context.WithCancel(testCtx(t, 30*time.Second))
	var outcomes atomic.Int32
	var killed record.DuelID
	cfg.Progress = func(p validator.Progress) {
		switch {
		case p.Stage == validator.StageStart:
			killed = p.Duel
		case p.Stage == validator.StageOutcome && outcomes.Add(1) == 5:
			kill()
		}
	}
	s = stopDuel(t, ctx, n, newValidator(t, cfg), s, dir)
	defer s.Close()
	rec := &recorder{}
	cfg = n.config(s, rec)
	cfg.Envs, cfg.Rule = fastEnvs(t), shortRule()
	v := newValidator(t, cfg)
	defer v.Close()
	if _, err := v.RunDuel(testCtx(t, 30*time.Second), n.miners["Champ"], n.miners["Cont"]); err != nil {
		t.Fatal(err)
	}
	h := v.History()
	if h.Entries[0].ID() != killed || rec.count(validator.StageAbandoned) != 0 {
		t.Fatalf("the duel after the restart is %s, the stopped one %s", h.Entries[0].ID(), killed)
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}

// stopDuel runs Champ against Cont on v from the next block until ctx is
// cancelled (by the test's Progress hook), closes v and s, and opens the
// store at dir again, as a restarted node does.
func stopDuel(t *testing.T, ctx context.Context, n *testNet, v *validator.Validator, s *ledger.Store, dir string) *ledger.Store {
	t.Helper()
	n.advance(t)
	if _, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Cont"]); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped duel: %v", err)
	}
	v.Close()
	s.Close()
	return openStore(t, dir)
}
