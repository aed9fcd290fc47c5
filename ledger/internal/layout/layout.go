// Package layout is the Pebble key layout of the ledger store, version 1
// (spec/store.md). It is pure: it builds and parses keys and values and
// touches no storage, so the store and its test-only raw writer agree on one
// definition.
//
// V below is a validator's 32-byte public key, BE64 a big-endian uint64, and
// CID a binary CIDv1 (36 bytes for the addresses the ledger makes).
package layout

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Version is written under MetaKey when a store is created and checked on
// every open.
const Version = "affine-ledger/store/v1"

// Table prefixes: one byte each, so a table is a contiguous key range.
const (
	Meta      = 0x00 // 0x00 "format" -> Version; 0x00 "network" -> genesis(32) BE16(netuid); 0x00 "halt" V -> BE64(height) CID
	Object    = 'o'  // 'o' CID -> encoded record (blocks, transcripts, decisions, fork proofs)
	Head      = 'h'  // 'h' V -> CID of the validator's latest block
	Block     = 'b'  // 'b' V BE64(height) -> CID of the block
	Leaf      = 'l'  // 'l' V BE64(leaf) -> Ref of transcript number leaf
	Node      = 'n'  // 'n' V u8(level) BE64(index) -> 32-byte Merkle node hash, level >= 1
	Challenge = 'c'  // 'c' challenge-binary M V -> Ref
	Miner     = 'm'  // 'm' M V BE64(leaf) -> Ref, M the miner's hotkey
	Duel      = 'd'  // 'd' D V BE64(leaf) -> Ref
	Fork      = 'f'  // 'f' V BE64(height) CID(proof) -> empty
	Equivoc   = 'e'  // 'e' V -> CID of the first fork proof
)

// MetaKey holds the layout version.
var MetaKey = []byte("\x00format")

// NetworkKey holds the store's network: the genesis hash of its public
// chain and the netuid, big-endian. Absent until the store is bound.
var NetworkKey = []byte("\x00network")

// HaltPrefix starts the keys of halted chains: HaltKey.
var HaltPrefix = []byte("\x00halt")

// HaltKey marks V's chain as halted: a peer's block of it that the store's
// appender did not make was seen, so the store signs none of V's blocks
// until the mark is cleared. Its value is the block's height and CID
// (HaltValue).
func HaltKey(v [32]byte) []byte { return append(append([]byte(nil), HaltPrefix...), v[:]...) }

// HaltValue is BE64(height) CID.
func HaltValue(height uint64, cid []byte) []byte { return append(be64(height), cid...) }

// ParseHaltValue splits a HaltKey's value.
func ParseHaltValue(v []byte) (height uint64, cid []byte, err error) {
	if len(v) < 9 {
		return 0, nil, fmt.Errorf("halt value of %d bytes", len(v))
	}
	return binary.BigEndian.Uint64(v), v[8:], nil
}

func key(prefix byte, parts ...[]byte) []byte {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 1, n)
	k[0] = prefix
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// ObjectKey is 'o' CID.
func ObjectKey(cid []byte) []byte { return key(Object, cid) }

// HeadKey is 'h' V.
func HeadKey(v [32]byte) []byte { return key(Head, v[:]) }

// BlockKey is 'b' V BE64(height).
func BlockKey(v [32]byte, height uint64) []byte { return key(Block, v[:], be64(height)) }

// LeafKey is 'l' V BE64(leaf).
func LeafKey(v [32]byte, leaf uint64) []byte { return key(Leaf, v[:], be64(leaf)) }

// NodeKey is 'n' V u8(level) BE64(index).
func NodeKey(v [32]byte, level uint, index uint64) []byte {
	return key(Node, v[:], []byte{byte(level)}, be64(index))
}

// ChallengeKey is 'c' challenge V, where challenge is the challenge's
// binary form followed by the miner's 32-byte hotkey (spec/store.md: 'c' CH
// M V). The binary form starts with its own length, so no key is a prefix
// of another challenge's keys.
func ChallengeKey(challenge []byte, v [32]byte) []byte { return key(Challenge, challenge, v[:]) }

// ChallengePrefix is 'c' challenge: every validator's use of a challenge.
func ChallengePrefix(challenge []byte) []byte { return key(Challenge, challenge) }

// MinerKey is 'm' M V BE64(leaf), M the miner's hotkey.
func MinerKey(miner, v [32]byte, leaf uint64) []byte { return key(Miner, miner[:], v[:], be64(leaf)) }

// DuelKey is 'd' D V BE64(leaf), D the 32-byte duel ID.
func DuelKey(duel, v [32]byte, leaf uint64) []byte { return key(Duel, duel[:], v[:], be64(leaf)) }

// ForkKey is 'f' V BE64(height) CID.
func ForkKey(v [32]byte, height uint64, proof []byte) []byte {
	return key(Fork, v[:], be64(height), proof)
}

// EquivocKey is 'e' V.
func EquivocKey(v [32]byte) []byte { return key(Equivoc, v[:]) }

// Prefix returns prefix followed by parts, for range scans.
func Prefix(prefix byte, parts ...[]byte) []byte { return key(prefix, parts...) }

// PrefixEnd returns the smallest key greater than every key starting with
// p, or nil if there is none.
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Ref locates a transcript: its validator's leaf index, the height of the
// block that holds it, and its CID. Encoded BE64(leaf) BE64(height) CID.
type Ref struct {
	Leaf   uint64
	Height uint64
	CID    []byte
}

// ErrBadValue is wrapped by value parse errors.
var ErrBadValue = errors.New("bad stored value")

// Append encodes r after b.
func (r Ref) Append(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, r.Leaf)
	b = binary.BigEndian.AppendUint64(b, r.Height)
	return append(b, r.CID...)
}

// ParseRef reads what Append writes. The CID aliases b.
func ParseRef(b []byte) (Ref, error) {
	if len(b) < 16+2 {
		return Ref{}, fmt.Errorf("%w: transcript ref of %d bytes", ErrBadValue, len(b))
	}
	return Ref{Leaf: binary.BigEndian.Uint64(b), Height: binary.BigEndian.Uint64(b[8:]), CID: b[16:]}, nil
}

// Uint64At reads the BE64 at b[off:].
func Uint64At(b []byte, off int) (uint64, bool) {
	if len(b) < off+8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[off:]), true
}
