package devnet

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/affine-ledger/ledger/duel"
)

// Limits of Config, so that a typo does not start a thousand nodes.
const (
	MaxValidators = 16
	MaxMiners     = 16
)

// Config configures Run. Dir is required; every zero field takes its
// default.
type Config struct {
	Dir string
	// Validators and Miners count the nodes and miners (default 4 and 4;
	// at least 1 and 2).
	Validators, Miners int
	// Duration bounds the run: it ends when a champion has been crowned
	// and weights set, or when Duration has passed (default 90 s).
	Duration time.Duration
	// BlockTime and Tempo shape the local chain (default 250 ms and 24
	// blocks: an epoch every 6 s).
	BlockTime time.Duration
	Tempo     uint64
	// Stagger delays validator i's duels by i × Stagger, as validators
	// whose queues reach a contender at different times; an epoch's
	// votes on one pair then come from only some of them.
	Stagger time.Duration
	// Rule is the duel rule (default: looks at 8, 16, 32 and 64 outcomes,
	// at most 120 challenges per env: clear cases end in seconds).
	Rule duel.Rule
	// Explorer, if set, is a loopback address where validator 0's node
	// serves /status, /metrics and the web explorer while the devnet runs
	// ("127.0.0.1:0" picks a port; the KindStarted event names it).
	Explorer string
	// Events, if set, receives what happens, for a display. It is called
	// from many goroutines and must return quickly.
	Events func(Event)
	Logger *slog.Logger
}

// DefaultRule is the devnet's duel rule: the network's test with fewer
// looks, so that duels between the reference miners end in seconds.
func DefaultRule() duel.Rule {
	return duel.Rule{ZMilli: 1960, Looks: []uint32{8, 16, 32, 64}, MaxChallenges: 120}
}

func (c Config) withDefaults() (Config, error) {
	if c.Dir == "" {
		return c, errors.New("devnet: no directory")
	}
	if c.Validators == 0 {
		c.Validators = 4
	}
	if c.Miners == 0 {
		c.Miners = 4
	}
	if c.Validators < 1 || c.Validators > MaxValidators {
		return c, fmt.Errorf("devnet: %d validators, want 1 to %d", c.Validators, MaxValidators)
	}
	if c.Miners < 2 || c.Miners > MaxMiners {
		return c, fmt.Errorf("devnet: %d miners, want 2 to %d (a duel needs two)", c.Miners, MaxMiners)
	}
	if c.Duration == 0 {
		c.Duration = 90 * time.Second
	}
	if c.Duration < 0 {
		return c, fmt.Errorf("devnet: negative duration %s", c.Duration)
	}
	if c.Stagger < 0 {
		return c, fmt.Errorf("devnet: negative stagger %s", c.Stagger)
	}
	if c.BlockTime == 0 {
		c.BlockTime = 250 * time.Millisecond
	}
	if c.Tempo == 0 {
		c.Tempo = 24
	}
	if c.Rule.Looks == nil {
		c.Rule = DefaultRule()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}
