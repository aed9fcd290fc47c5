package chain

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/affine-ledger/ledger/keys"
)

// Chain is one subnet on one chain, as a validator or miner sees it.
//
// The Reader methods return the state at the current head; At returns a
// Reader of the state as of an earlier block. Writes are signed by the
// hotkey given (sr25519, keys.Hotkey) and return once the chain has applied
// them (the local chain) or included them in a block (subtensor); a refused
// write returns one of this package's errors, wrapped. A Chain is safe for
// concurrent use; Close releases its connections (and, for an in-process
// chain, stops block production).
type Chain interface {
	// Params returns the subnet's consensus parameters.
	Params(ctx context.Context) (Params, error)
	// Head returns the latest block.
	Head(ctx context.Context) (Block, error)
	// BlockHash returns the hash of block number n (ErrNotFound past the
	// head).
	BlockHash(ctx context.Context, n uint64) (Hash, error)

	Reader
	// At returns the state as of block n: what the chain holds once block
	// n is final. Every validator reading an epoch's participants at the
	// same block sees the same stakes, whenever it reads (spec/vtrust.md).
	// At, or a read through the Reader it returns, fails with ErrNotFound
	// past the head and ErrStateUnavailable for a block whose state the
	// chain no longer keeps (a pruned node).
	At(ctx context.Context, n uint64) (Reader, error)

	// SetCommitment replaces k's commitment with fields (at most
	// MaxFields). Each call costs max(total field length, 100) bytes of
	// the hotkey's MaxSpace per epoch (ErrSpaceLimit).
	SetCommitment(ctx context.Context, k *keys.Hotkey, fields []Data) error

	// SetWeights sets k's weights directly; only while commit-reveal is
	// off (ErrCommitRevealOn).
	SetWeights(ctx context.Context, k *keys.Hotkey, w Weights) error
	// CommitWeights records CommitHash of weights to be revealed
	// Params.RevealPeriod epochs later.
	CommitWeights(ctx context.Context, k *keys.Hotkey, hash Hash) error
	// RevealWeights reveals weights committed earlier: in exactly the
	// commit's epoch + RevealPeriod (ErrRevealTooEarly, ErrRevealExpired),
	// and only if they hash to a pending commit (ErrCommitMismatch).
	RevealWeights(ctx context.Context, k *keys.Hotkey, r Reveal) error

	// Close releases the chain.
	Close() error
}

// Reader reads the subnet's state at one block.
type Reader interface {
	// Metagraph returns the registered neurons with their stake, permits
	// and the results of the last epoch.
	Metagraph(ctx context.Context) (*Metagraph, error)
	// Commitment returns the hotkey's commitment (ErrNotFound if none).
	Commitment(ctx context.Context, hotkey keys.PublicKey) (Commitment, error)
	// Commitments returns every commitment on the subnet, ordered by the
	// block they were made at, then by hotkey bytes.
	Commitments(ctx context.Context) ([]Commitment, error)
	// Weights returns the weights in effect, one row per neuron that has
	// set any, by uid.
	Weights(ctx context.Context) ([]WeightRow, error)
}

// Hash is a 32-byte block or commit hash: lower-case hex in text.
type Hash [32]byte

// String returns lower-case hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText writes lower-case hex.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads 64 hex characters.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) != 64 {
		return fmt.Errorf("hash: %d hex characters, want 64", len(b))
	}
	if _, err := hex.Decode(h[:], b); err != nil {
		return fmt.Errorf("hash: %w", err)
	}
	return nil
}

// Block names a chain block.
type Block struct {
	Number uint64 `json:"number"`
	Hash   Hash   `json:"hash"`
}

// Params are the subnet's consensus parameters.
type Params struct {
	Netuid uint16 `json:"netuid"`
	// Tempo is the subnet's tempo; see Schedule for where its epochs
	// begin.
	Tempo uint64 `json:"tempo"`
	// BlockTime is the target time between blocks.
	BlockTime time.Duration `json:"block_time_ns"`
	// CommitReveal tells whether weights must be committed and revealed.
	CommitReveal bool `json:"commit_reveal"`
	// RevealPeriod is the number of epochs between a commit and its
	// reveal.
	RevealPeriod uint64 `json:"reveal_period"`
	// VersionKey is the least weights version key the subnet accepts.
	VersionKey uint64 `json:"version_key"`
	// MinAllowedWeights is the fewest uids a weight row must name, capped
	// at the subnet's neuron count; a single self-weight is exempt
	// (CheckLength). 0 and 1 take any row that names a uid.
	MinAllowedWeights uint16 `json:"min_allowed_weights,omitempty"`
	// MaxSpace is the commitment space of one hotkey per epoch.
	MaxSpace uint64 `json:"max_space"`
	// EpochLength and EpochOffset say how the chain numbers its epochs
	// (Schedule); a zero length numbers them by Tempo from block 0. A
	// chain whose epochs are stateful (subtensor since runtime 423) gives
	// the schedule in force at the head the params were read at: read
	// again, it may have moved.
	EpochLength uint64 `json:"epoch_length,omitempty"`
	EpochOffset int64  `json:"epoch_offset,omitempty"`
}

// Metagraph is the subnet's neurons at one block.
type Metagraph struct {
	Netuid uint16 `json:"netuid"`
	// Block is the block the metagraph was read at.
	Block uint64 `json:"block"`
	// Epoch counts the epochs run so far; EpochBlock is the block at which
	// the last one ran (0 before the first).
	Epoch      uint64 `json:"epoch"`
	EpochBlock uint64 `json:"epoch_block"`
	// Neurons are indexed by uid: Neurons[i].UID == i.
	Neurons []Neuron `json:"neurons"`
}

// Neuron is one registered hotkey. Trust-like results are u16 fixed point
// as subtensor stores them: 65535 is 1.0.
type Neuron struct {
	UID    uint16         `json:"uid"`
	Hotkey keys.PublicKey `json:"hotkey"`
	// Stake in the subnet's smallest unit (rao of alpha on Bittensor).
	Stake           uint64 `json:"stake"`
	ValidatorPermit bool   `json:"validator_permit"`
	// Results of the last epoch.
	ValidatorTrust uint16 `json:"validator_trust"`
	Consensus      uint16 `json:"consensus"`
	Incentive      uint16 `json:"incentive"`
	Dividends      uint16 `json:"dividends"`
}

// Find returns the neuron of hotkey.
func (m *Metagraph) Find(hotkey keys.PublicKey) (Neuron, bool) {
	for _, n := range m.Neurons {
		if n.Hotkey == hotkey {
			return n, true
		}
	}
	return Neuron{}, false
}

// Commitment is what a hotkey committed, and when.
type Commitment struct {
	Hotkey keys.PublicKey `json:"hotkey"`
	// Block is the block of the latest set_commitment: an overwrite moves
	// the commitment to the back of the queue.
	Block  uint64 `json:"block"`
	Fields []Data `json:"fields"`
}

// Weights is one validator's sparse weight row: Values[i] is the weight of
// UIDs[i]. The chain normalizes a row so that its largest value is 65535.
type Weights struct {
	UIDs       []uint16 `json:"uids"`
	Values     []uint16 `json:"values"`
	VersionKey uint64   `json:"version_key"`
}

// Reveal is a committed weight row with its salt.
type Reveal struct {
	Weights
	Salt []uint16 `json:"salt"`
}

// WeightRow is the weight row in effect for one neuron.
type WeightRow struct {
	UID    uint16   `json:"uid"`
	UIDs   []uint16 `json:"uids"`
	Values []uint16 `json:"values"`
	// LastUpdate is subtensor's LastUpdate of the uid: the block it
	// registered at or, if later, last set weights at (commit-reveal
	// off) or committed them at (on). A reveal leaves it: it does not
	// tell when the row in effect was revealed, only that no commit of
	// the uid was taken after it. 0 where the chain holds none.
	LastUpdate uint64 `json:"last_update"`
}
