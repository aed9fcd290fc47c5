package challenge

import (
	"crypto/sha256"
	"encoding/binary"
)

// SeedDomain separates challenge seeds from every other SHA-256 use.
const SeedDomain = "affine-ledger/challenge-seed/v1"

// DeriveSeed computes a challenge seed from public randomness, so that a
// validator cannot choose its challenges and an auditor can recompute them:
//
//	SHA-256(SeedDomain || 0x00 || anchorHash || validator || u8 len(env) || env || BE16 version || BE64 counter)
//
// anchorHash is the hash of the chain block at which the duel starts,
// validator the 32-byte public key of the validator's hotkey, and counter the
// validator's running count of challenges drawn for this env at this anchor.
func DeriveSeed(anchorHash [32]byte, validator [32]byte, env string, version uint16, counter uint64) [SeedSize]byte {
	h := sha256.New()
	h.Write([]byte(SeedDomain))
	h.Write([]byte{0})
	h.Write(anchorHash[:])
	h.Write(validator[:])
	h.Write([]byte{byte(len(env))})
	h.Write([]byte(env))
	var tail [10]byte
	binary.BigEndian.PutUint16(tail[:2], version)
	binary.BigEndian.PutUint64(tail[2:], counter)
	h.Write(tail[:])
	var seed [SeedSize]byte
	h.Sum(seed[:0])
	return seed
}

// Derive returns the challenge ID for the given public inputs. env must pass
// CheckEnvName and version must be at least 1.
func Derive(anchorHash [32]byte, validator [32]byte, env string, version uint16, counter uint64) (ID, error) {
	return New(env, version, DeriveSeed(anchorHash, validator, env, version, counter))
}
