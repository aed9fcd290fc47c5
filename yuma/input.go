package yuma

import (
	"errors"
	"fmt"
	"math"
)

// ErrInput is wrapped by every error Epoch returns: the input is not a
// state subtensor could hold.
var ErrInput = errors.New("yuma: invalid epoch input")

// NoOwner is the OwnerUID of a subnet whose owner hotkey holds no uid.
const NoOwner = -1

// Entry is one (uid, value) pair of a sparse row, as subtensor stores
// weights and bonds: Weights rows hold MaxUpscale'd values, Bonds rows hold
// column max-upscaled u16 values (fixed proportions of 65535 under Yuma3).
type Entry struct {
	UID   uint16 `json:"uid"`
	Value uint16 `json:"value"`
}

// Params are the subnet hyperparameters the epoch reads. Start from
// DefaultParams: the zero value is not subtensor's default.
type Params struct {
	// Kappa is the consensus majority as a fraction of 65535.
	Kappa uint16 `json:"kappa"`
	// BondsPenalty, as a fraction of 65535, moves the weights bonds grow
	// on from the raw weights (0) to the consensus-clipped ones (65535).
	BondsPenalty uint16 `json:"bonds_penalty"`
	// BondsMovingAverage is the weight of old bonds in the EMA, in
	// millionths: the EMA's alpha is 1 - BondsMovingAverage/1e6.
	BondsMovingAverage uint64 `json:"bonds_moving_average"`
	// ActivityCutoff is in blocks: a uid whose weights are older than this
	// is inactive, and its stake does not count. Subtensor derives it as
	// max(1, ActivityCutoffFactorMilli * tempo / 1000).
	ActivityCutoff uint64 `json:"activity_cutoff"`
	// MaxAllowedValidators is how many uids, by stake, get a permit.
	MaxAllowedValidators uint16 `json:"max_allowed_validators"`
	// StakeThreshold is the minimum stake (rao) that counts at all.
	StakeThreshold uint64 `json:"stake_threshold"`
	// OwnerUID is the subnet owner hotkey's uid, or NoOwner. The owner
	// always holds a permit, ignores StakeThreshold and keeps its
	// self-weight.
	OwnerUID int `json:"owner_uid"`
	// Yuma3 selects subtensor's Yuma3 bonds (Yuma3On) with liquid alpha
	// off; false is the original Yuma.
	Yuma3 bool `json:"yuma3"`
}

// DefaultParams returns subtensor's runtime defaults for a new subnet, with
// ActivityCutoff at the legacy 5000 blocks (13_889 per mille of tempo 360).
func DefaultParams() Params {
	return Params{
		Kappa:                32_767,
		BondsPenalty:         math.MaxUint16,
		BondsMovingAverage:   900_000,
		ActivityCutoff:       5000,
		MaxAllowedValidators: 128,
		OwnerUID:             NoOwner,
	}
}

// Input is the subnet state one epoch reads. The per-uid slices all have
// one element per uid; their common length n is the subnet size.
type Input struct {
	// Stake is each uid's stake weight in rao: subtensor's total stake
	// (alpha + tao * tao_weight) without its fractional part.
	Stake []uint64 `json:"stake"`
	// ValidatorPermit holds the permits the previous epoch stored.
	ValidatorPermit []bool `json:"validator_permit"`
	// LastUpdate is the block of each uid's last weights.
	LastUpdate []uint64 `json:"last_update"`
	// BlockAtRegistration is the block each uid was last registered at.
	BlockAtRegistration []uint64 `json:"block_at_registration"`
	// Weights[i] is the weight row uid i set; missing rows are empty.
	// Entries for uids at or beyond n are ignored, as subtensor ignores
	// them; a uid twice in a row is an error.
	Weights [][]Entry `json:"weights"`
	// Bonds[i] is the bond row the previous epoch stored for uid i.
	Bonds [][]Entry `json:"bonds"`
	// CurrentBlock is the block the epoch runs at.
	CurrentBlock uint64 `json:"current_block"`
	// LastTempo is the first block of the tempo that ends now (see the
	// LastTempo function): bonds on uids registered at or after it are
	// dropped, because they were earned by the uid's previous holder.
	LastTempo uint64 `json:"last_tempo"`
	// Emission is the rao the epoch distributes.
	Emission uint64 `json:"emission"`
	Params   Params `json:"params"`
}

// LastTempo returns the block subtensor compares registrations against
// when it drops bonds: one past the last mechanism step, or, before the
// first step, currentBlock - tempo (saturating at zero).
func LastTempo(currentBlock, tempo, lastStepBlock uint64) uint64 {
	if lastStepBlock == 0 {
		if tempo > currentBlock {
			return 0
		}
		return currentBlock - tempo
	}
	return lastStepBlock + 1
}

func (in *Input) validate() (int, error) {
	n := len(in.Stake)
	if n > math.MaxUint16+1 {
		return 0, fmt.Errorf("%w: %d uids, uids are u16", ErrInput, n)
	}
	for _, l := range []struct {
		name string
		len  int
	}{
		{"ValidatorPermit", len(in.ValidatorPermit)},
		{"LastUpdate", len(in.LastUpdate)},
		{"BlockAtRegistration", len(in.BlockAtRegistration)},
	} {
		if l.len != n {
			return 0, fmt.Errorf("%w: len(%s) = %d, want %d (one per uid, as Stake)", ErrInput, l.name, l.len, n)
		}
	}
	var total uint64
	for i, s := range in.Stake {
		if s > math.MaxInt64-total {
			return 0, fmt.Errorf("%w: total stake exceeds 2^63-1 rao at uid %d (I64F64 range)", ErrInput, i)
		}
		total += s
	}
	p := in.Params
	if p.OwnerUID != NoOwner && (p.OwnerUID < 0 || p.OwnerUID >= n) {
		return 0, fmt.Errorf("%w: OwnerUID %d is neither NoOwner nor a uid below %d", ErrInput, p.OwnerUID, n)
	}
	if p.BondsMovingAverage > 1_000_000 {
		return 0, fmt.Errorf("%w: BondsMovingAverage %d exceeds 1000000 (one million = keep old bonds entirely)", ErrInput, p.BondsMovingAverage)
	}
	if len(in.Weights) > n || len(in.Bonds) > n {
		return 0, fmt.Errorf("%w: %d weight rows and %d bond rows for %d uids", ErrInput, len(in.Weights), len(in.Bonds), n)
	}
	return n, nil
}
