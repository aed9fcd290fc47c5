package record

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/affine-ledger/ledger/keys"
)

// DuelDomain separates duel IDs from every other SHA-256 use.
const DuelDomain = "affine-ledger/duel/v1"

// Duel is one comparison of a contender against the champion, started at a
// chain anchor. Every validator that runs the same pair from the same anchor
// runs the same duel, so their transcripts can be compared.
type Duel struct {
	Champion  keys.PublicKey `cbor:"champion" json:"champion"`
	Contender keys.PublicKey `cbor:"contender" json:"contender"`
	Start     Anchor         `cbor:"start" json:"start"`
}

// DuelID names a duel: 32 bytes, the zero value meaning "no duel".
type DuelID [32]byte

// ID computes
//
//	SHA-256(DuelDomain || 0x00 || champion || contender || BE64 start.number || start.hash)
func (d Duel) ID() DuelID {
	h := sha256.New()
	h.Write([]byte(DuelDomain))
	h.Write([]byte{0})
	h.Write(d.Champion[:])
	h.Write(d.Contender[:])
	h.Write(binary.BigEndian.AppendUint64(nil, d.Start.Number))
	h.Write(d.Start.Hash[:])
	var id DuelID
	h.Sum(id[:0])
	return id
}

// IsZero reports whether id names no duel.
func (id DuelID) IsZero() bool { return id == DuelID{} }

// String returns lower-case hex.
func (id DuelID) String() string { return hex.EncodeToString(id[:]) }

// MarshalText writes lower-case hex (JSON).
func (id DuelID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads 64 hex characters.
func (id *DuelID) UnmarshalText(b []byte) error { return decodeHex32("duel ID", b, (*[32]byte)(id)) }
