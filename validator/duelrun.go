package validator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// sideRun is one miner of a running duel.
type sideRun struct {
	miner chain.Contender
	side  duel.Side
	rec   record.Miner
	ep    inference.Endpoint
	// unanswered counts the side's challenges in a row that got no
	// answer at all (see unansweredLimit).
	unanswered *atomic.Int32
}

// envRun is one env of a running duel. Counters are drawn in order from 0;
// outcomes are counted in counter order (fed is the next to count), so the
// record lists challenges as drawn whatever order the answers came in.
type envRun struct {
	index   int
	name    string
	version uint16
	factory envs.Factory

	next     uint64                  // next counter to draw
	fed      uint64                  // counters below fed are counted (or skipped)
	stored   map[uint64]duel.Outcome // answered before a restart, not yet counted
	answered map[uint64]answer       // answered, waiting for the counters before them
	inflight map[uint64]context.CancelFunc
	samples  []duel.Sample
}

// answer is what a challenge's worker reports.
type answer struct {
	env     int
	counter uint64
	id      challenge.ID
	outcome duel.Outcome
	// skipped: the pair could not be recorded (over the ledger's limits);
	// the counter is passed over.
	skipped  bool
	canceled bool
	err      error
}

// run is one duel in progress.
type run struct {
	v           *Validator
	id          record.DuelID
	start       record.Anchor
	ratio       uint32
	frontier    duel.Frontier
	champ, cont sideRun
	d           *duel.Duel
	envs        []*envRun
	resumed     int
}

func (v *Validator) newSide(m chain.Contender) sideRun {
	ep, err := v.cfg.Endpoint(m)
	if err != nil {
		// No endpoint: every call fails as a bad request, so the miner
		// loses the challenges as it would by not answering.
		ep = inference.Endpoint{Key: m.Hotkey.String(), Model: m.Commitment.Model}
	}
	return sideRun{miner: m, side: Side(m), rec: ledgerMiner(m), ep: ep, unanswered: new(atomic.Int32)}
}

// newRun sets a duel up: resumed from the ledger if the unfinished duel is
// between the same two models, else fresh at a new anchor. frontier is
// the history's, nil to start a reign: from the frontier src left when
// there is one (recorded by adopt before the duel starts), else at the
// floor; with resumeOnly the duel must resume (frontierFor).
func (v *Validator) newRun(ctx context.Context, champion, contender chain.Contender, frontier *duel.Frontier, src *crowned, resumeOnly bool) (*run, error) {
	r := &run{v: v, champ: v.newSide(champion), cont: v.newSide(contender)}
	for i, f := range v.cfg.Envs {
		s := f.Spec()
		r.envs = append(r.envs, &envRun{
			index: i, name: s.Name, version: s.Version, factory: f,
			stored: map[uint64]duel.Outcome{}, answered: map[uint64]answer{}, inflight: map[uint64]context.CancelFunc{},
		})
	}
	v.stateMu.Lock()
	p := v.pending
	v.pending = nil
	v.stateMu.Unlock()
	if p != nil {
		if p.champion.Equal(r.champ.side) && p.contender.Equal(r.cont.side) {
			maxCounter := uint64(v.cfg.Rule.MaxChallenges) + 4*MaxInFlight
			n, err := loadStored(v.cfg.Store, v.pub, p, r.envs, maxCounter)
			var ab errAbandon
			switch {
			case errors.As(err, &ab):
				r.abandoned(p, ab.reason)
			case err != nil:
				return nil, fmt.Errorf("resume duel %s: %w", p.id, err)
			default:
				r.start, r.id, r.resumed = p.start, p.id, n
			}
		} else {
			r.abandoned(p, "the duel to run now is between other models")
		}
	}
	if r.resumed == 0 && resumeOnly {
		return nil, fmt.Errorf("duel against %s: %w: the unfinished duel of a new reign could not be resumed and the champion's model is committed again", champion.Hotkey.Short(), ErrNotChampion)
	}
	if r.resumed == 0 {
		for _, e := range r.envs {
			clear(e.stored)
		}
		a, err := v.startAnchor(ctx)
		if err != nil {
			return nil, err
		}
		r.start = a
		r.id = record.Duel{Champion: champion.Hotkey, Contender: contender.Hotkey, Start: a}.ID()
	}
	adopted := false
	switch {
	case frontier != nil:
		r.frontier = *frontier
	case src != nil && r.resumed == 0:
		// A resumed duel keeps the frontier it started under: one that
		// started without an adoption (a release before them) at the floor.
		f, ok, err := v.adopt(ctx, r.start, *src)
		if err != nil {
			return nil, err
		}
		r.frontier, adopted = f, ok
	}
	if frontier == nil && !adopted {
		r.frontier = v.cfg.Frontier.Genesis(r.champ.side, r.start.Number)
	}
	ratio, err := v.cfg.Frontier.Ratio(r.frontier, r.start.Number)
	if err != nil {
		return nil, fmt.Errorf("duel at block %d: %w", r.start.Number, err)
	}
	r.ratio = ratio
	if r.d, err = duel.NewDuel(v.cfg.Rule, ratio, envNames(v.cfg.Envs)); err != nil {
		return nil, err
	}
	return r, nil
}

// startAnchor draws a fresh start for a duel that the validator's chain
// records before any challenge drawn at it is: an auditor accepts a
// transcript's seed only from an anchor its chain recorded in the
// transcript's block or before (spec/verify.md#seeds). The duel's
// transcripts, appended with the start as their anchor, cannot record it
// themselves: a block takes the newest anchor of its requests and never
// goes back, so a newer one from another writer of the chain (a node's
// epoch driver) passes over it. So the start is the chain head if the
// chain already records it or a newer one, which then becomes the start;
// else an empty block records it first, or the newer anchor its block took.
func (v *Validator) startAnchor(ctx context.Context) (record.Anchor, error) {
	a, err := v.anchor(ctx)
	if err != nil {
		return record.Anchor{}, err
	}
	h, err := v.cfg.Store.Head(v.pub)
	switch {
	case err == nil && h.Anchor.Number >= a.Number:
		a = h.Anchor
	case err == nil || errors.Is(err, ledger.ErrNotFound):
		began := time.Now()
		rc, err := v.app.Append(ctx, a, nil, nil)
		v.cfg.Metrics.Appended(0, time.Since(began), err)
		if err != nil {
			return record.Anchor{}, fmt.Errorf("record the start anchor %d: %w", a.Number, err)
		}
		v.notify(rc)
		b, err := v.cfg.Store.Block(rc.Block.CID)
		if err != nil {
			return record.Anchor{}, fmt.Errorf("record the start anchor %d: %w", a.Number, err)
		}
		a = b.Anchor
	default:
		return record.Anchor{}, fmt.Errorf("duel start: %w", err)
	}
	v.stateMu.Lock()
	v.lastStart = max(v.lastStart, a.Number)
	v.stateMu.Unlock()
	return a, nil
}

func (r *run) abandoned(p *unfinished, reason string) {
	if r.v.cfg.Progress != nil {
		r.v.cfg.Progress(Progress{
			Stage: StageAbandoned, Duel: p.id, Start: p.start, Reason: reason,
			Champion: p.champion.Hotkey, Contender: p.contender.Hotkey,
		})
	}
}

// seed is what the duel's challenge counter of an env is derived from: its
// start and the counter. Transcripts record it.
func (r *run) seed(counter uint64) record.Seed {
	return record.Seed{Anchor: r.start, Counter: counter}
}

// run plays the duel to its decision, records the result and moves the
// history.
func (r *run) run(ctx context.Context) (duel.Result, error) {
	r.progress(Progress{Stage: StageStart, Resumed: r.resumed})
	recorded := false
	defer func() {
		if !recorded {
			// What was answered is in the ledger: the next RunDuel of
			// these two models (or the next New, after a restart)
			// resumes from it.
			r.v.stateMu.Lock()
			r.v.pending = &unfinished{id: r.id, start: r.start, champion: r.champ.side, contender: r.cont.side}
			r.v.stateMu.Unlock()
		}
	}()
	if err := r.play(ctx); err != nil {
		return duel.Result{}, err
	}
	in := duel.Input{
		Start:     duel.Anchor{Number: r.start.Number, Hash: duel.Hash(r.start.Hash)},
		Champion:  r.champ.side,
		Contender: r.cont.side,
		Rule:      r.v.cfg.Rule,
		RatioPPM:  r.ratio,
	}
	for _, e := range r.envs {
		in.Envs = append(in.Envs, duel.EnvInput{Env: e.name, Samples: e.samples})
	}
	res, err := duel.Recompute(in)
	if err != nil {
		return duel.Result{}, fmt.Errorf("duel %s: %w", r.id, err)
	}
	raw, _, err := duel.Encode(res)
	if err != nil {
		return duel.Result{}, fmt.Errorf("duel %s: %w", r.id, err)
	}
	// The result's block is anchored at the newest chain block, not the
	// duel's start: the epoch that counts the vote is the one in which it
	// was cast (spec/vtrust.md), whatever the duel's length.
	anchor := r.start
	if b, err := r.v.cfg.Chain.Head(ctx); err == nil && b.Number > anchor.Number {
		anchor = record.Anchor{Number: b.Number, Hash: record.Hash(b.Hash)}
	}
	began := time.Now()
	rc, err := r.v.app.Append(ctx, anchor, nil, [][]byte{raw})
	r.v.cfg.Metrics.Appended(0, time.Since(began), err)
	if err != nil {
		return duel.Result{}, fmt.Errorf("duel %s: record result: %w", r.id, err)
	}
	recorded = true
	r.v.notify(rc)
	index := decisionIndex(r.v.cfg.Store, rc)
	r.v.stateMu.Lock()
	err = r.v.hist.add(rc.Block, rc.Decisions[0], index, res)
	r.v.stateMu.Unlock()
	if err != nil {
		return duel.Result{}, err
	}
	r.progress(Progress{Stage: StageDecided, Winner: r.d.Winner(), Record: rc.Decisions[0]})
	return res, nil
}

// play draws and answers challenges until the duel is decided. Every
// worker has returned when it does.
func (r *run) play(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	// Workers never block on the channel: at most InFlight per env run.
	results := make(chan answer, len(r.envs)*r.v.cfg.InFlight)
	pending := 0
	for {
		r.feed()
		if r.d.Done() {
			return nil
		}
		took := false
		for _, e := range r.envs {
			if r.d.State(e.index).Decision() != duel.Open {
				continue
			}
			for e.next < e.fed+uint64(r.v.cfg.InFlight) {
				c := e.next
				e.next++
				if o, ok := e.stored[c]; ok {
					delete(e.stored, c)
					id, err := r.seed(c).Derive(r.v.pub, e.name, e.version)
					if err != nil {
						return err
					}
					e.answered[c] = answer{env: e.index, counter: c, id: id, outcome: o}
					took = true
					continue
				}
				wctx, wcancel := context.WithCancel(ctx)
				e.inflight[c] = wcancel
				pending++
				wg.Add(1)
				go func() {
					defer wg.Done()
					results <- r.answer(wctx, e, c)
				}()
			}
		}
		if took {
			continue // count the stored answers taken before waiting
		}
		if pending == 0 {
			return fmt.Errorf("duel %s: no challenge out and none to count", r.id)
		}
		var a answer
		select {
		case a = <-results:
		case <-ctx.Done():
			return ctx.Err()
		}
		pending--
		e := r.envs[a.env]
		if cancel, ok := e.inflight[a.counter]; ok {
			cancel()
			delete(e.inflight, a.counter)
		}
		switch {
		case a.err != nil:
			return a.err
		case a.canceled:
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.d.State(a.env).Decision() == duel.Open {
				return fmt.Errorf("duel %s: challenge %d of env %s abandoned while its env is open", r.id, a.counter, e.name)
			}
			// Cancelled because its env was decided: nothing to count.
		default:
			e.answered[a.counter] = a
		}
	}
}

// feed counts the answers that are next in counter order, while their env
// and the duel are open. An env decided by them cancels its challenges
// still out.
func (r *run) feed() {
	for _, e := range r.envs {
		for !r.d.Done() && r.d.State(e.index).Decision() == duel.Open {
			a, ok := e.answered[e.fed]
			if !ok {
				break
			}
			delete(e.answered, e.fed)
			e.fed++
			if a.skipped {
				continue
			}
			// AddAt cannot fail: the env is open and o is an outcome.
			_ = r.d.AddAt(e.index, a.outcome)
			e.samples = append(e.samples, duel.Sample{ID: a.id, Outcome: a.outcome})
			r.outcomeProgress(e, a.outcome)
		}
		if r.d.Done() || r.d.State(e.index).Decision() != duel.Open {
			for _, cancel := range e.inflight {
				cancel()
			}
		}
	}
}

// answer puts challenge counter of env e to both miners at once and
// appends the two transcripts as one request, so they are durable
// together.
func (r *run) answer(ctx context.Context, e *envRun, counter uint64) answer {
	a := answer{env: e.index, counter: counter}
	seed := r.seed(counter)
	id, err := seed.Derive(r.v.pub, e.name, e.version)
	if err != nil {
		a.err = err
		return a
	}
	a.id = id
	var ts [2]record.Transcript
	var errs [2]error
	var wg sync.WaitGroup
	for i, s := range []*sideRun{&r.champ, &r.cont} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts[i], errs[i] = r.v.play(ctx, s, e.factory, id, seed, r.id)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		switch {
		case errors.Is(err, errCanceled):
			a.canceled = true
			return a
		case err != nil:
			a.err = fmt.Errorf("duel %s challenge %s: %w", r.id, id, err)
			return a
		}
	}
	began := time.Now()
	rc, err := r.v.app.Append(ctx, r.start, ts[:], nil)
	r.v.cfg.Metrics.Appended(len(ts), time.Since(began), err)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		a.canceled = true
		return a
	case errors.Is(err, record.ErrMalformed):
		a.skipped = true
		return a
	default:
		a.err = fmt.Errorf("duel %s challenge %s: %w", r.id, id, err)
		return a
	}
	r.v.notify(rc)
	a.outcome = duel.Judge(ts[0].Reward, ts[1].Reward)
	return a
}
