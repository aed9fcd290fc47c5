package duel

import (
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/challenge"
)

// MaxEnvs bounds the envs of one duel.
const MaxEnvs = 32

// A duel's record must fit in MaxResultBytes whatever happens, so NewDuel
// bounds its size: each challenge costs at most challengeBytes plus the
// env name's length (a CBOR byte string of 2 + 1 + len(env) + 2 + 32 bytes
// for the ID, 1 for the outcome letter), and everything else at most
// recordReserve.
const (
	challengeBytes = 38
	recordReserve  = 32 << 10
)

// ErrBadEnvs is wrapped when a duel's env list is unusable.
var ErrBadEnvs = errors.New("bad duel envs")

// Duel runs the per-env tests of one duel in parallel. The contender takes
// the duel as soon as it holds more than half of the envs; the champion
// keeps it as soon as the contender can no longer get there (early abort).
// It is not safe for concurrent use.
//
// The winner, once known, never changes: later outcomes for envs still open
// (answers that were in flight) may decide those envs, but a held majority
// stays a majority and a lost one stays lost.
type Duel struct {
	envs   []string
	states []EnvState
}

// NewDuel starts a duel over envs, which must be valid env names in
// strictly increasing byte order, against the ratio to beat ratioPPM.
func NewDuel(rule Rule, ratioPPM uint32, envs []string) (*Duel, error) {
	if err := checkEnvs(envs); err != nil {
		return nil, err
	}
	if err := rule.Validate(); err != nil {
		return nil, err
	}
	size := uint64(recordReserve)
	for _, e := range envs {
		size += uint64(rule.MaxChallenges) * uint64(challengeBytes+len(e))
	}
	if size > MaxResultBytes {
		return nil, fmt.Errorf("%w: %d envs of up to %d challenges could make a record of %d bytes, max %d", ErrBadEnvs, len(envs), rule.MaxChallenges, size, MaxResultBytes)
	}
	d := &Duel{envs: append([]string(nil), envs...), states: make([]EnvState, len(envs))}
	for i := range envs {
		s, err := NewEnvState(rule, ratioPPM)
		if err != nil {
			return nil, err
		}
		d.states[i] = *s
	}
	return d, nil
}

func checkEnvs(envs []string) error {
	if len(envs) == 0 || len(envs) > MaxEnvs {
		return fmt.Errorf("%w: %d envs, want 1 to %d", ErrBadEnvs, len(envs), MaxEnvs)
	}
	for i, e := range envs {
		if err := challenge.CheckEnvName(e); err != nil {
			return fmt.Errorf("%w: env %d: %w", ErrBadEnvs, i, err)
		}
		if i > 0 && envs[i-1] >= e {
			return fmt.Errorf("%w: %q after %q: envs must be unique and sorted", ErrBadEnvs, e, envs[i-1])
		}
	}
	return nil
}

// Envs returns the duel's envs in order.
func (d *Duel) Envs() []string { return append([]string(nil), d.envs...) }

// Index returns the position of env, or -1.
func (d *Duel) Index(env string) int {
	for i, e := range d.envs {
		if e == env {
			return i
		}
	}
	return -1
}

// State returns the test of env i. Callers must not Add to it directly.
func (d *Duel) State(i int) *EnvState { return &d.states[i] }

// Add records one outcome for env.
func (d *Duel) Add(env string, o Outcome) error {
	i := d.Index(env)
	if i < 0 {
		return fmt.Errorf("env %q is not in this duel", env)
	}
	return d.AddAt(i, o)
}

// AddAt records one outcome for the env at index i.
func (d *Duel) AddAt(i int, o Outcome) error {
	if err := d.states[i].Add(o); err != nil {
		return fmt.Errorf("env %s: %w", d.envs[i], err)
	}
	return nil
}

// Tally counts the envs held by the contender, by the champion, and open.
func (d *Duel) Tally() (contender, champion, open int) {
	for i := range d.states {
		switch d.states[i].decision {
		case Contender:
			contender++
		case Champion:
			champion++
		default:
			open++
		}
	}
	return
}

// Winner returns Contender once it holds more than half of the envs,
// Champion once it cannot (its envs plus the open ones are at most half),
// and Open before.
func (d *Duel) Winner() Decision {
	won, _, open := d.Tally()
	n := len(d.states)
	switch {
	case 2*won > n:
		return Contender
	case 2*(won+open) <= n:
		return Champion
	}
	return Open
}

// Done reports whether the winner is known.
func (d *Duel) Done() bool { return d.Winner() != Open }

// Need returns the envs that still need challenges: the open ones, while the
// duel is undecided. It is empty once Done.
func (d *Duel) Need() []string {
	if d.Done() {
		return nil
	}
	var need []string
	for i := range d.states {
		if d.states[i].decision == Open {
			need = append(need, d.envs[i])
		}
	}
	return need
}

// Challenges returns the outcomes added over all envs.
func (d *Duel) Challenges() uint32 {
	var n uint32
	for i := range d.states {
		n += d.states[i].Challenges()
	}
	return n
}
