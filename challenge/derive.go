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
	// One Sum256 over a message built on the stack: an audit derives a
	// seed for every transcript, and a hash.Hash would be allocated.
	msg := make([]byte, 0, len(SeedDomain)+1+32+32+1+MaxEnvName+2+8)
	msg = append(msg, SeedDomain...)
	msg = append(msg, 0)
	msg = append(msg, anchorHash[:]...)
	msg = append(msg, validator[:]...)
	msg = append(msg, byte(len(env)))
	msg = append(msg, env...)
	msg = binary.BigEndian.AppendUint16(msg, version)
	msg = binary.BigEndian.AppendUint64(msg, counter)
	return sha256.Sum256(msg)
}

// Derive returns the challenge ID for the given public inputs. env must pass
// CheckEnvName and version must be at least 1.
func Derive(anchorHash [32]byte, validator [32]byte, env string, version uint16, counter uint64) (ID, error) {
	return New(env, version, DeriveSeed(anchorHash, validator, env, version, counter))
}
