package vtrust

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/rng"
)

// A scenario is a random epoch: validators with random stakes, some of
// them liars holding together less than half of the stake, miners with
// random commitment blocks, and duels with a true winner. Honest
// validators run every duel and record its true winner (their per-env
// decisions vary at random, as sampling makes them vary), a third of them
// in an earlier epoch (standing votes). Each liar mixes strategies:
// flipping winners, abstaining, duels nobody else ran, a late result that
// supersedes an honest one, and scores that do not reproduce.
type scenario struct {
	seed       int
	validators []string
	stakes     []uint64
	liar       []bool
	miners     []string
	commits    []uint64
	duels      []realDuel
	envs       int
}

type realDuel struct {
	champion, contender string
	truth               string
}

type liarPlan struct {
	flip, abstain uint64 // chances in ppm
	fault         bool
	private       int
	supersede     bool
}

func newScenario(seed int, liarShare func(total uint64) uint64) (*scenario, *rng.Stream) {
	r := rng.New(rng.Derive([32]byte{}, fmt.Sprintf("vtrust scenario %d", seed)))
	s := &scenario{seed: seed, envs: []int{1, 3, 5}[r.Uniform(3)]}
	n := int(r.IntRange(3, 16))
	var total uint64
	for i := range n {
		s.validators = append(s.validators, fmt.Sprintf("v%d", i))
		stake := uint64(r.IntRange(1, 1_000_000)) * 1_000_000_000
		s.stakes = append(s.stakes, stake)
		total += stake
	}
	s.liar = make([]bool, n)
	limit := liarShare(total)
	var liars uint64
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, i := range order[:r.IntRange(0, int64(n-1))] {
		if liars+s.stakes[i] < limit {
			s.liar[i] = true
			liars += s.stakes[i]
		}
	}
	k := int(r.IntRange(3, 12))
	for i := range k {
		s.miners = append(s.miners, fmt.Sprintf("m%d", i))
		s.commits = append(s.commits, r.Uniform(50)) // collisions exercise the hotkey tie-break
	}
	// Duels in rounds against the champion of the moment, plus some
	// against former or never champions.
	used := map[[2]string]bool{}
	add := func(champ, cont string) {
		if champ == cont || used[[2]string{champ, cont}] {
			return
		}
		used[[2]string{champ, cont}] = true
		truth := champion
		if r.Chance(1, 2) {
			truth = contender
		}
		s.duels = append(s.duels, realDuel{champ, cont, truth})
	}
	cur := s.miners[0]
	for range r.IntRange(1, 4) {
		for range r.IntRange(1, 3) {
			add(cur, s.miners[r.Uniform(uint64(k))])
		}
		if r.Chance(1, 3) {
			add(s.miners[r.Uniform(uint64(k))], s.miners[r.Uniform(uint64(k))])
		}
		cur = s.oracle(cur)
	}
	return s, r
}

// oracle follows the true outcomes from first by the rule of
// spec/vtrust.md (earliest commitment, then smaller hotkey; every duel at
// most once), without any of the package's code.
func (s *scenario) oracle(first string) string {
	commit := map[string]uint64{}
	for i, m := range s.miners {
		commit[m] = s.commits[i]
	}
	used := make([]bool, len(s.duels))
	cur := first
	for {
		best := -1
		for i, d := range s.duels {
			if used[i] || d.champion != cur || d.truth != contender {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			b := s.duels[best].contender
			hc, hb := hotkey(d.contender), hotkey(b)
			if commit[d.contender] < commit[b] || commit[d.contender] == commit[b] && string(hc[:]) < string(hb[:]) {
				best = i
			}
		}
		if best < 0 {
			return cur
		}
		used[best] = true
		cur = s.duels[best].contender
	}
}

// envsFor draws per-env letters that decide winner.
func envsFor(r *rng.Stream, n int, winner string) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = "cho"[r.Uniform(3)]
		}
		won, undecided := 0, 0
		for _, c := range b {
			won += map[bool]int{true: 1}[c == 'c']
			undecided += map[bool]int{true: 1}[c == 'o']
		}
		if winner == contender && 2*won > n || winner == champion && 2*(won+undecided) <= n {
			return string(b)
		}
	}
}

func flip(w string) string {
	if w == contender {
		return champion
	}
	return contender
}

func (s *scenario) base() *world {
	w := newWorld(s.miners[0])
	for i, v := range s.validators {
		w.validator(v, s.stakes[i])
	}
	for i, m := range s.miners {
		w.miner(m, uint16(i), s.commits[i])
	}
	return w
}

// honest is the counterfactual: every validator records the truth.
func (s *scenario) honest() *world {
	r := rng.New(rng.Derive([32]byte{}, fmt.Sprintf("vtrust honest %d", s.seed)))
	w := s.base()
	for _, v := range s.validators {
		for _, d := range s.duels {
			w.vote(v, d.champion, d.contender, envsFor(r, s.envs, d.truth))
		}
	}
	return w
}

// withLiars is the epoch as it happens, and each liar's plan.
func (s *scenario) withLiars(r *rng.Stream) (*world, map[string]liarPlan) {
	w := s.base()
	plans := map[string]liarPlan{}
	var honest []string
	for i, v := range s.validators {
		if !s.liar[i] {
			honest = append(honest, v)
		}
	}
	for i, v := range s.validators {
		if !s.liar[i] {
			for _, d := range s.duels {
				w.cast(r.Chance(1, 3), v, d.champion, d.contender, envsFor(r, s.envs, d.truth), 1000)
			}
			// honest validators' records reproduce
			w.outcome(s.validators[(i+1)%len(s.validators)], v, fmt.Sprintf("%s t%d", v, i), Agree)
			continue
		}
		p := liarPlan{
			flip:      []uint64{0, 300_000, PPM}[r.Uniform(3)],
			abstain:   []uint64{0, 0, 300_000}[r.Uniform(3)],
			fault:     r.Chance(1, 3),
			supersede: r.Chance(1, 3),
		}
		if r.Chance(1, 2) {
			p.private = int(r.IntRange(1, 3))
		}
		plans[v] = p
		for _, d := range s.duels {
			if r.Chance(p.abstain, PPM) {
				continue
			}
			winner := d.truth
			if r.Chance(p.flip, PPM) {
				winner = flip(winner)
			}
			if p.supersede {
				// an honest early result, then the one that counts
				w.cast(r.Chance(1, 2), v, d.champion, d.contender, envsFor(r, s.envs, d.truth), 500)
			}
			w.cast(r.Chance(1, 3), v, d.champion, d.contender, envsFor(r, s.envs, winner), 1000)
		}
		for range p.private {
			champ := s.miners[r.Uniform(uint64(len(s.miners)))]
			if r.Chance(1, 2) {
				champ = s.miners[0]
			}
			friend := s.miners[r.Uniform(uint64(len(s.miners)))]
			if friend != champ {
				w.vote(v, champ, friend, envsFor(r, s.envs, contender))
			}
		}
		auditor := s.validators[(i+1)%len(s.validators)]
		w.outcome(auditor, v, v+" t0", Agree)
		if p.fault {
			w.outcome(auditor, v, v+" t1", Fault)
		}
	}
	return w, plans
}

// TestLiarCannotChangeWinner: over many random epochs, liars holding less
// than half of the stake leave the champion and the weights exactly where
// the same validators, all honest, would have put them; honest validators
// keep full vTrust; liars whose scores do not reproduce get 0, and liars
// that contradict the majority on every duel they decide get 0.
func TestLiarCannotChangeWinner(t *testing.T) {
	t.Parallel()
	configs := 600
	if testing.Short() {
		configs = 150
	}
	dethrones, withLiars := 0, 0
	for seed := range configs {
		s, r := newScenario(seed, func(total uint64) uint64 { return (total + 1) / 2 })
		liars, plans := s.withLiars(r)
		got := liars.run(t)
		want := s.honest().run(t)
		expect := s.oracle(s.miners[0])
		if !want.Champion.Equal(side(expect)) {
			t.Fatalf("seed %d: all honest, champion %s, oracle %s", seed, nameOf(want.Champion, s.miners...), expect)
		}
		if !got.Champion.Equal(want.Champion) || !reflect.DeepEqual(got.Weights, want.Weights) {
			t.Fatalf("seed %d: liars (%v) moved the champion from %s to %s", seed, plans, nameOf(want.Champion, s.miners...), nameOf(got.Champion, s.miners...))
		}
		if expect != s.miners[0] {
			dethrones++
		}
		if len(plans) > 0 {
			withLiars++
		}
		for i, v := range s.validators {
			tr := trustOf(t, got, v)
			p, lying := plans[v]
			switch {
			case !lying && !s.liar[i] && tr.VTrustPPM != PPM:
				t.Fatalf("seed %d: honest %s has vtrust %d: %+v", seed, v, tr.VTrustPPM, tr)
			case lying && p.fault && (tr.VTrustPPM != 0 || !tr.HardFault || len(tr.Evidence) != 1):
				t.Fatalf("seed %d: liar %s with a fault: %+v", seed, v, tr)
			case lying && p.flip == PPM && p.private == 0 && tr.Scored > 0 && tr.DecisionPPM != 0:
				t.Fatalf("seed %d: liar %s flipped every duel but has decision agreement %d", seed, v, tr.DecisionPPM)
			}
		}
	}
	// The property is only worth something if the configurations dethrone
	// and have liars.
	if dethrones < configs/4 || withLiars < configs/2 {
		t.Fatalf("weak sample: %d of %d configurations dethrone, %d have liars", dethrones, configs, withLiars)
	}
}

// TestMajorityLiarsCanChangeWinner is the property's boundary: with more
// than half of the stake, liars that flip every duel do move the champion
// in some configurations, so the test above would catch a rule that let
// them.
func TestMajorityLiarsCanChangeWinner(t *testing.T) {
	t.Parallel()
	moved := 0
	for seed := range 200 {
		s, _ := newScenario(seed, func(total uint64) uint64 { return total })
		var liarStake, total uint64
		for i := range s.validators {
			total += s.stakes[i]
			if s.liar[i] {
				liarStake += s.stakes[i]
			}
		}
		if 2*liarStake <= total {
			continue
		}
		w := s.base()
		r := rng.New(rng.Derive([32]byte{}, fmt.Sprintf("majority %d", seed)))
		for i, v := range s.validators {
			for _, d := range s.duels {
				winner := d.truth
				if s.liar[i] {
					winner = flip(winner)
				}
				w.vote(v, d.champion, d.contender, envsFor(r, s.envs, winner))
			}
		}
		if !w.run(t).Champion.Equal(s.honest().run(t).Champion) {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("majority liars never moved the champion: the liar property test proves nothing")
	}
}

// TestEpochOrderIndependent: every validator receives the same records in
// its own order (and some twice); all compute identical outputs.
func TestEpochOrderIndependent(t *testing.T) {
	t.Parallel()
	for seed := range 100 {
		s, r := newScenario(seed, func(total uint64) uint64 { return (total + 1) / 2 })
		w, _ := s.withLiars(r)
		ref, err := json.Marshal(w.run(t))
		if err != nil {
			t.Fatal(err)
		}
		for view := range 4 {
			in := w.in
			in.Validators = append([]Validator(nil), in.Validators...)
			in.Miners = append([]Miner(nil), in.Miners...)
			in.Votes = append([]Vote(nil), in.Votes...)
			in.Standing = append([]Vote(nil), in.Standing...)
			in.Outcomes = append([]Outcome(nil), in.Outcomes...)
			if view > 0 && len(in.Votes) > 0 {
				in.Votes = append(in.Votes, in.Votes[r.Uniform(uint64(len(in.Votes)))])
			}
			if view > 0 && len(in.Standing) > 0 {
				in.Standing = append(in.Standing, in.Standing[r.Uniform(uint64(len(in.Standing)))])
			}
			if view > 1 && len(in.Outcomes) > 0 {
				in.Outcomes = append(in.Outcomes, in.Outcomes[r.Uniform(uint64(len(in.Outcomes)))])
			}
			shuffle(r, in.Validators)
			shuffle(r, in.Miners)
			shuffle(r, in.Votes)
			shuffle(r, in.Standing)
			shuffle(r, in.Outcomes)
			out, err := Epoch(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(ref) {
				t.Fatalf("seed %d view %d: output depends on input order", seed, view)
			}
		}
	}
}

func shuffle[T any](r *rng.Stream, s []T) {
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
}

// TestHonestValidatorsComputeTheSameWeights: validators that each audit
// the others (so each holds its own verdicts plus the others' reproduced
// ones) and hold the same votes set the same weights.
func TestHonestValidatorsComputeTheSameWeights(t *testing.T) {
	t.Parallel()
	s, r := newScenario(7, func(uint64) uint64 { return 0 })
	if len(s.duels) == 0 {
		t.Fatal("scenario 7 has no duels")
	}
	w := s.honest()
	var outs []Output
	for i, auditor := range s.validators {
		in := w.in
		in.Outcomes = nil
		// every validator holds every validator's verdicts but lists its own
		// first; the order must not matter
		for j := range s.validators {
			a := s.validators[(i+j)%len(s.validators)]
			for _, v := range s.validators {
				if v != a {
					in.Outcomes = append(in.Outcomes, mustOutcome(a, v, "transcript of "+v))
				}
			}
		}
		in.Votes = append([]Vote(nil), in.Votes...)
		shuffle(r, in.Votes)
		out, err := Epoch(in)
		if err != nil {
			t.Fatalf("%s: %v", auditor, err)
		}
		outs = append(outs, out)
	}
	for i, out := range outs[1:] {
		if !reflect.DeepEqual(out, outs[0]) {
			t.Fatalf("validator %s computes another epoch than %s", s.validators[i+1], s.validators[0])
		}
	}
	if len(outs[0].Weights.UIDs) != 1 || outs[0].Weights.Values[0] != 65535 {
		t.Fatalf("weights %+v", outs[0].Weights)
	}
	for _, tr := range outs[0].Validators {
		// each transcript was judged by every other validator: one record
		if tr.VTrustPPM != PPM || tr.Agreed != 1 || tr.Votes != uint32(len(s.duels)) {
			t.Fatalf("honest %s: %+v", tr.Hotkey, tr)
		}
	}
}

func mustOutcome(auditor, validator, record string) Outcome {
	o, err := NewOutcome(hotkey(auditor), hotkey(validator), cidOf("block of "+record), cidOf(record), Agree, "")
	if err != nil {
		panic(err)
	}
	return o
}
