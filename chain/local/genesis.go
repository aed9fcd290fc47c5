package local

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// Defaults of a genesis that leaves a parameter out.
const (
	DefaultNetuid       = 1
	DefaultTempo        = 360
	DefaultBlockTime    = 12 * time.Second
	DefaultRevealPeriod = 1
	// MaxNeurons bounds registrations, as a subnet's max_allowed_uids does.
	MaxNeurons = 256
	// maxUnrevealed is subtensor's limit of pending weight commits per
	// hotkey.
	maxUnrevealed = 10
)

// Genesis configures a new local chain (spec/chain.md, "Genesis"). It is
// written into the chain's directory on first start and read from there
// afterwards, so a restarted chain keeps its parameters.
type Genesis struct {
	// Seed makes chains with otherwise equal genesis distinct: it feeds
	// every block hash. Any string.
	Seed   string `json:"seed"`
	Netuid uint16 `json:"netuid"`
	Tempo  uint64 `json:"tempo"`
	// BlockTime is a Go duration string ("12s", "100ms").
	BlockTime    Duration `json:"block_time"`
	CommitReveal bool     `json:"commit_reveal"`
	RevealPeriod uint64   `json:"reveal_period"`
	VersionKey   uint64   `json:"version_key"`
	MaxSpace     uint64   `json:"max_space"`
	// MinAllowedWeights is subtensor's min_allowed_weights: a weight row
	// names at least this many uids, or every neuron when the subnet has
	// fewer, unless it is a single self-weight (chain.CheckLength). 0 (a
	// genesis without it) and 1 take any row that names a uid.
	MinAllowedWeights uint16 `json:"min_allowed_weights,omitempty"`
	// SubtensorEpochs numbers epochs as subtensor does, offset by the
	// netuid (chain.SubtensorSchedule), instead of by tempo from block 0.
	SubtensorEpochs bool `json:"subtensor_epochs,omitempty"`
	// Neurons are registered at genesis, in uid order.
	Neurons []GenesisNeuron `json:"neurons"`
}

// GenesisNeuron is a hotkey registered at genesis.
type GenesisNeuron struct {
	Hotkey    keys.PublicKey `json:"hotkey"`
	Stake     uint64         `json:"stake"`
	Validator bool           `json:"validator"`
}

// Duration is a time.Duration written as a Go duration string in JSON.
type Duration time.Duration

// MarshalText writes e.g. "12s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// DefaultGenesis is a chain with the default parameters, commit-reveal on,
// and no neurons.
func DefaultGenesis() Genesis {
	return Genesis{
		Seed: "ledger devnet", Netuid: DefaultNetuid, Tempo: DefaultTempo,
		BlockTime: Duration(DefaultBlockTime), CommitReveal: true,
		RevealPeriod: DefaultRevealPeriod, MaxSpace: chain.DefaultMaxSpace,
	}
}

// Check reports whether g can start a chain.
func (g Genesis) Check() error {
	if g.Tempo == 0 {
		return fmt.Errorf("genesis: tempo must be at least 1")
	}
	if g.BlockTime < Duration(time.Millisecond) {
		return fmt.Errorf("genesis: block_time %s is below 1ms", time.Duration(g.BlockTime))
	}
	if g.CommitReveal && g.RevealPeriod == 0 {
		return fmt.Errorf("genesis: reveal_period must be at least 1 with commit_reveal")
	}
	if g.MaxSpace == 0 {
		return fmt.Errorf("genesis: max_space must be positive")
	}
	if len(g.Neurons) > MaxNeurons {
		return fmt.Errorf("genesis: %d neurons, at most %d", len(g.Neurons), MaxNeurons)
	}
	seen := map[keys.PublicKey]bool{}
	for i, n := range g.Neurons {
		if seen[n.Hotkey] {
			return fmt.Errorf("genesis: neuron %d: hotkey %s listed twice", i, n.Hotkey)
		}
		seen[n.Hotkey] = true
	}
	return nil
}

// Params returns the chain.Params a genesis sets.
func (g Genesis) Params() chain.Params {
	p := chain.Params{
		Netuid: g.Netuid, Tempo: g.Tempo, BlockTime: time.Duration(g.BlockTime),
		CommitReveal: g.CommitReveal, RevealPeriod: g.RevealPeriod,
		VersionKey: g.VersionKey, MaxSpace: g.MaxSpace, MinAllowedWeights: g.MinAllowedWeights,
	}
	if g.SubtensorEpochs {
		s := g.Schedule()
		p.EpochLength, p.EpochOffset = s.Length, s.Offset
	}
	return p
}

// Schedule is how the chain numbers its epochs.
func (g Genesis) Schedule() chain.Schedule {
	if g.SubtensorEpochs {
		return chain.SubtensorSchedule(g.Netuid, g.Tempo)
	}
	return chain.TempoSchedule(g.Tempo)
}

// ReadGenesis reads a genesis file. Absent parameters take DefaultGenesis's
// values; unknown fields are errors.
func ReadGenesis(path string) (Genesis, error) {
	f, err := os.Open(path)
	if err != nil {
		return Genesis{}, fmt.Errorf("genesis: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxGenesisBytes+1))
	if err != nil {
		return Genesis{}, fmt.Errorf("genesis %s: %w", path, err)
	}
	if len(data) > MaxGenesisBytes {
		return Genesis{}, fmt.Errorf("genesis %s: over %d bytes", path, MaxGenesisBytes)
	}
	return ParseGenesis(data)
}

// MaxGenesisBytes bounds a genesis file: MaxNeurons neurons take about
// 30 KiB of JSON, so a larger file is the wrong file (a log, a device).
const MaxGenesisBytes = 1 << 20

// ParseGenesis reads a genesis document (see ReadGenesis).
func ParseGenesis(data []byte) (Genesis, error) {
	g := DefaultGenesis()
	if err := strictJSON(data, &g); err != nil {
		return Genesis{}, fmt.Errorf("genesis: %w", err)
	}
	if err := g.Check(); err != nil {
		return Genesis{}, err
	}
	return g, nil
}
