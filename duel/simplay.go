package duel

import (
	"strconv"

	"github.com/affine-ledger/ledger/rng"
)

// player plays duels for one worker, reusing its outcome buffers.
type player struct {
	cfg  SimConfig
	bufs [][]Outcome
	gens []*rng.Stream
}

type played struct {
	seq, fixed, every        uint32
	seqWon, fixWon, everyWon bool
}

func newPlayer(cfg SimConfig) *player { return &player{cfg: cfg} }

// play runs one duel under every rule. Env e's outcomes come from the
// stream derive(duelSeed, decimal e); each outcome is one uniform(10¹²)
// draw u: a draw if u < draw·10⁶, else a win if u < draw·10⁶ +
// (10⁶ - draw)·rate, else a loss (all in ppm).
func (p *player) play(c Case, duelSeed [32]byte) (played, error) {
	n := len(c.RatesPPM)
	if len(p.bufs) < n {
		p.bufs = make([][]Outcome, n)
		p.gens = make([]*rng.Stream, n)
	}
	for e := range n {
		p.bufs[e] = p.bufs[e][:0]
		p.gens[e] = rng.New(rng.Derive(duelSeed, strconv.Itoa(e)))
	}
	outcome := func(e int, k uint32) Outcome {
		for uint32(len(p.bufs[e])) <= k {
			u := p.gens[e].Uniform(PPM * PPM)
			drawT := uint64(c.DrawPPM) * PPM
			o := Loss
			switch {
			case u < drawT:
				o = Draw
			case u < drawT+uint64(PPM-c.DrawPPM)*uint64(c.RatesPPM[e]):
				o = Win
			}
			p.bufs[e] = append(p.bufs[e], o)
		}
		return p.bufs[e][k]
	}
	var r played
	var err error
	if r.seq, r.seqWon, err = playSequential(p.cfg.Rule, c, outcome); err != nil {
		return r, err
	}
	if p.cfg.EverySample != nil {
		if r.every, r.everyWon, err = playSequential(*p.cfg.EverySample, c, outcome); err != nil {
			return r, err
		}
	}
	takes := 0
	for e := range n {
		w, l := uint32(0), uint32(0)
		for k := range p.cfg.Fixed.Challenges {
			switch outcome(e, k) {
			case Win:
				w++
			case Loss:
				l++
			}
		}
		if LowerExceeds(w, w+l, p.cfg.Fixed.ZMilli, c.RatioPPM) {
			takes++
		}
	}
	r.fixed, r.fixWon = uint32(n)*p.cfg.Fixed.Challenges, 2*takes > n
	return r, nil
}

// playSequential gives every open env one challenge per round (the
// validator queries all envs in parallel) and checks the duel after each
// round.
func playSequential(rule Rule, c Case, outcome func(e int, k uint32) Outcome) (uint32, bool, error) {
	envs := simEnvs(len(c.RatesPPM))
	d, err := NewDuel(rule, c.RatioPPM, envs)
	if err != nil {
		return 0, false, err
	}
	open := make([]int, 0, len(envs))
	for !d.Done() {
		open = open[:0]
		for i := range envs {
			if d.State(i).Decision() == Open {
				open = append(open, i)
			}
		}
		for _, i := range open {
			if err := d.AddAt(i, outcome(i, d.State(i).Challenges())); err != nil {
				return 0, false, err
			}
		}
	}
	return d.Challenges(), d.Winner() == Contender, nil
}

// simEnvs names n simulated envs, in order.
func simEnvs(n int) []string {
	envs := make([]string, n)
	for i := range envs {
		envs[i] = "env" + strconv.Itoa(100+i)
	}
	return envs
}
