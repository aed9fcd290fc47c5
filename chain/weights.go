package chain

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math/big"

	"golang.org/x/crypto/blake2b"

	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/keys"
)

// MaxWeightValue is the largest weight: a row is scaled so its largest
// value is this.
const MaxWeightValue = 65535

// SaltLen is the number of u16 words of salt Salt draws (what the Bittensor
// SDK uses by default).
const SaltLen = 8

// CommitHash is the hash a validator commits before revealing weights:
// Blake2b-256 of the SCALE encoding of the tuple
// (AccountId32, netuid u16, uids Vec<u16>, values Vec<u16>, salt Vec<u16>,
// version_key u64), which is subtensor's get_commit_hash.
func CommitHash(who keys.PublicKey, netuid uint16, r Reveal) Hash {
	return blake2b.Sum256(CommitPreimage(who, netuid, r))
}

// CommitPreimage is the SCALE encoding CommitHash hashes.
func CommitPreimage(who keys.PublicKey, netuid uint16, r Reveal) []byte {
	var e scale.Encoder
	e.Fixed(who[:])
	e.U16(netuid)
	e.VecU16(r.UIDs)
	e.VecU16(r.Values)
	e.VecU16(r.Salt)
	e.U64(r.VersionKey)
	return e.Bytes()
}

// NewSalt draws a random salt for a commit.
func NewSalt() ([]uint16, error) {
	var b [2 * SaltLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("salt: %w", err)
	}
	salt := make([]uint16, SaltLen)
	for i := range salt {
		salt[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return salt, nil
}

// CheckWeights reports whether w is a row the chain can take on a subnet of
// n neurons: as many values as uids, at least one, no uid twice, every uid
// below n.
func CheckWeights(w Weights, n int) error {
	if len(w.UIDs) != len(w.Values) {
		return fmt.Errorf("%w: %d uids but %d values", ErrBadWeights, len(w.UIDs), len(w.Values))
	}
	if len(w.UIDs) == 0 {
		return fmt.Errorf("%w: no uids", ErrBadWeights)
	}
	seen := make(map[uint16]bool, len(w.UIDs))
	for _, u := range w.UIDs {
		if int(u) >= n {
			return fmt.Errorf("%w: uid %d does not exist (subnet has %d neurons)", ErrBadWeights, u, n)
		}
		if seen[u] {
			return fmt.Errorf("%w: uid %d appears twice", ErrBadWeights, u)
		}
		seen[u] = true
	}
	return nil
}

// ScaleWeights turns non-negative scores into u16 weights whose largest is
// MaxWeightValue, rounding to nearest (half up), as the chain stores them:
// value_i = round(65535 * score_i / max score). All-zero scores give all
// zeros. Integer arithmetic, so every implementation gets the same row.
func ScaleWeights(scores []uint64) []uint16 {
	out := make([]uint16, len(scores))
	var top uint64
	for _, s := range scores {
		top = max(top, s)
	}
	if top == 0 {
		return out
	}
	den := new(big.Int).SetUint64(top)
	half := new(big.Int).Rsh(den, 1)
	for i, s := range scores {
		num := new(big.Int).SetUint64(s)
		num.Mul(num, big.NewInt(MaxWeightValue))
		num.Add(num, half)
		num.Quo(num, den)
		out[i] = uint16(num.Uint64())
	}
	return out
}
