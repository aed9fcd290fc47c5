package validator

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/metrics"
)

// Defaults of Config.
const (
	// DefaultInFlight is how many challenges of one env are out at once.
	// Each is put to both miners; the inference client's per-miner and
	// overall limits bound the requests actually in flight.
	DefaultInFlight = 8
	// DefaultPoll is how often an idle Run reads the chain again, and how
	// often a duel waiting for a fresh anchor reads the head.
	DefaultPoll = 2 * time.Second
	// MaxInFlight bounds InFlight: an interrupted duel leaves at most this
	// many unanswered counters per env, which an auditor's seed window
	// (spec/verify.md) must span.
	MaxInFlight = 32
)

// Config configures a Validator. Chain, Store and Key are required; every
// other zero field takes its default, and the defaults are the network's
// (spec/duel.md). Tests shrink Rule and Envs to keep duels short.
type Config struct {
	// Chain gives the anchor of each duel and the miners' commitments.
	Chain chain.Chain
	// Store is the ledger; it checks every duel result again when it
	// stores it (package decisions).
	Store *ledger.Store
	// Key is the validator's hotkey: it signs the blocks and seeds the
	// challenges.
	Key *keys.Hotkey
	// Appender, if set, is used to write the chain instead of one New
	// opens (BlockSize and BlockInterval are then the appender's own
	// business), and Close leaves it open.
	Appender *ledger.Appender
	// BlockSize caps the transcripts of one block (default and maximum
	// ledger.MaxTranscriptsPerBlock); BlockInterval is how long a block
	// waits for more transcripts before it is sealed (default 0: take what
	// is queued while the previous block syncs).
	BlockSize     int
	BlockInterval time.Duration

	// Client asks the miners (default inference.New with its defaults).
	Client *inference.Client
	// Endpoint turns a miner's commitment into the endpoint to query
	// (default DefaultEndpoint(""), which needs no key for endpoint URLs
	// and sends none to chutes).
	Endpoint func(chain.Contender) (inference.Endpoint, error)
	// Envs are the envs of every duel (default registry.Current()), at
	// most duel.MaxEnvs, with distinct names.
	Envs []envs.Factory
	// Rule is the per-env sequential test (default duel.DefaultRule());
	// Frontier moves the ratio to beat (default
	// duel.DefaultFrontierParams()).
	Rule     duel.Rule
	Frontier duel.FrontierParams
	// InFlight is how many challenges of one env are out at once
	// (default DefaultInFlight, at most MaxInFlight).
	InFlight int
	// Poll is how often an idle Run reads the chain (default DefaultPoll).
	Poll time.Duration
	// Consensus, if set, is the network's consensus as the node's epochs
	// computed it (an epoch.Driver): the duel loop leaves its own champion
	// for the consensus champion once its own can no longer become it
	// (spec/validator.md, "Following consensus"). Unset, the loop follows
	// its ledger alone.
	Consensus ConsensusView

	// Progress, if set, is called with every step of every duel: its
	// start, each outcome counted and its end. It is called from the
	// duel's goroutine and must return quickly.
	Progress func(Progress)
	// OnBlock, if set, is called once for each block of this validator
	// that holds the loop's records, after the block is durable (a node
	// gossips it). Calls come in height order, from the loop's
	// goroutines, one at a time.
	OnBlock func(ledger.Receipt)
	// Metrics, if set, counts appends and their latency, duel progress
	// and miners' failed calls by kind.
	Metrics *metrics.Metrics
	// Now gives transcript timestamps (default time.Now).
	Now func() time.Time
	// Logger receives what an operator must hear of: a miner whose calls
	// fail (at most once a minute a miner, endpointwarn.go). Nil discards.
	Logger *slog.Logger
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("validator config")

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Chain == nil:
		return c, fmt.Errorf("%w: no chain", ErrConfig)
	case c.Store == nil:
		return c, fmt.Errorf("%w: no ledger store", ErrConfig)
	case c.Key == nil:
		return c, fmt.Errorf("%w: no hotkey", ErrConfig)
	}
	if c.Client == nil {
		c.Client = inference.New(inference.Options{})
	}
	if c.Endpoint == nil {
		c.Endpoint = DefaultEndpoint("")
	}
	if c.Envs == nil {
		c.Envs = registry.Current()
	}
	c.Envs = append([]envs.Factory(nil), c.Envs...)
	sort.Slice(c.Envs, func(i, j int) bool { return c.Envs[i].Spec().Name < c.Envs[j].Spec().Name })
	if c.Rule.Looks == nil {
		c.Rule = duel.DefaultRule()
	}
	if c.Frontier == (duel.FrontierParams{}) {
		c.Frontier = duel.DefaultFrontierParams()
	}
	if err := c.Frontier.Validate(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.InFlight == 0 {
		c.InFlight = DefaultInFlight
	}
	if c.InFlight < 0 || c.InFlight > MaxInFlight {
		return c, fmt.Errorf("%w: %d challenges in flight per env, want 1 to %d", ErrConfig, c.InFlight, MaxInFlight)
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.BlockSize < 0 || c.BlockSize > record.MaxTranscriptsPerBlock {
		return c, fmt.Errorf("%w: block size %d, want 1 to %d", ErrConfig, c.BlockSize, record.MaxTranscriptsPerBlock)
	}
	if c.BlockSize == 1 {
		// A pair of transcripts is one request, never split across blocks.
		return c, fmt.Errorf("%w: block size 1 cannot hold a pair of transcripts", ErrConfig)
	}
	// NewDuel checks the env names, their order and the record size the
	// rule allows.
	if _, err := duel.NewDuel(c.Rule, c.Frontier.Floor(), envNames(c.Envs)); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}

func envNames(fs []envs.Factory) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Spec().Name
	}
	return out
}

// DefaultEndpoint returns the endpoint resolver of a validator: a miner
// that committed an endpoint URL is asked there, one that committed a chute
// at https://<chute>.chutes.ai/v1 with apiKey as bearer key. The request
// names the committed model; the per-miner concurrency limit is keyed by
// the miner's hotkey.
func DefaultEndpoint(apiKey string) func(chain.Contender) (inference.Endpoint, error) {
	return func(m chain.Contender) (inference.Endpoint, error) {
		c := m.Commitment
		if c.Chute != "" {
			ep, err := inference.Chutes(c.Chute, c.Model, apiKey)
			if err != nil {
				return ep, fmt.Errorf("miner %s: %w", m.Hotkey.Short(), err)
			}
			ep.Key = m.Hotkey.String()
			return ep, nil
		}
		if c.Endpoint == "" {
			return inference.Endpoint{}, fmt.Errorf("miner %s committed neither a chute nor an endpoint", m.Hotkey.Short())
		}
		return inference.Endpoint{Key: m.Hotkey.String(), BaseURL: c.Endpoint, Model: c.Model}, nil
	}
}
