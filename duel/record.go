package duel

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// Record constants (spec/duel.md, "Decision records").
const (
	// ResultType is the type field of a duel result, so that a reader of
	// the opaque decision records of a block can tell them apart.
	ResultType = "duel"
	// ResultVersion is the record format version.
	ResultVersion = 1
	// MaxResultBytes bounds an encoded duel result: the ledger's limit on
	// one decision record.
	MaxResultBytes = 1 << 20
	// MaxModelHash bounds a model hash, as the ledger bounds a miner's.
	MaxModelHash = 64
)

// ErrMalformed is wrapped by every decoding and verification error of a
// duel result.
var ErrMalformed = errors.New("malformed duel result")

// Hash is a 32-byte chain block hash: a CBOR byte string, lower-case hex in
// JSON.
type Hash [32]byte

// MarshalText writes lower-case hex.
func (h Hash) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h[:])), nil }

// UnmarshalText reads 64 lower-case hex characters.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) != 64 {
		return fmt.Errorf("hash: %d hex characters, want 64", len(b))
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// HexBytes is a byte string shown as lower-case hex in JSON.
type HexBytes []byte

// MarshalText writes lower-case hex.
func (b HexBytes) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(b)), nil }

// UnmarshalText reads hex.
func (b *HexBytes) UnmarshalText(t []byte) error {
	v, err := hex.DecodeString(string(t))
	*b = v
	return err
}

// Anchor is the chain block a duel starts at. Its layout is the ledger's
// block anchor: the block number and the block hash that seeds the duel's
// challenges.
type Anchor struct {
	Number uint64 `cbor:"number" json:"number"`
	Hash   Hash   `cbor:"hash" json:"hash"`
}

// Side is one of the two models: the miner's hotkey and the hash of the
// model it committed.
type Side struct {
	Hotkey    keys.PublicKey `cbor:"hotkey" json:"hotkey"`
	ModelHash HexBytes       `cbor:"model_hash" json:"model_hash"`
}

// Equal reports whether s and o are the same model: the same hotkey and
// model hash.
func (s Side) Equal(o Side) bool {
	return s.Hotkey == o.Hotkey && string(s.ModelHash) == string(o.ModelHash)
}

// EnvResult is the outcome of one env of a duel.
type EnvResult struct {
	Env string `cbor:"env" json:"env"`
	// Challenges are the challenges answered in this env, in the order
	// they were drawn; Outcomes holds one letter per challenge, W, L or
	// D, for the contender.
	Challenges []challenge.ID `cbor:"challenges" json:"challenges"`
	Outcomes   string         `cbor:"outcomes" json:"outcomes"`
	Wins       uint32         `cbor:"wins" json:"wins"`
	Losses     uint32         `cbor:"losses" json:"losses"`
	Draws      uint32         `cbor:"draws" json:"draws"`
	// Looks is the number of looks taken; LowerPPM and UpperPPM are the
	// Wilson bounds at the last one (0 and 1000000 before any).
	Looks    uint32 `cbor:"looks" json:"looks"`
	LowerPPM uint32 `cbor:"lower_ppm" json:"lower_ppm"`
	UpperPPM uint32 `cbor:"upper_ppm" json:"upper_ppm"`
	// RatePPM is the contender's win rate over all decisive outcomes.
	RatePPM uint32 `cbor:"rate_ppm" json:"rate_ppm"`
	// Decision is "contender", "champion" or "open" (the duel ended first);
	// Reason is "bound", "last_look", "max_challenges" or "" when open.
	Decision string `cbor:"decision" json:"decision"`
	Reason   string `cbor:"reason" json:"reason"`
}

// Result is the decision record of one duel, as a validator writes it into
// its ledger. Every field after Envs is a function of the fields before it;
// Verify checks that.
type Result struct {
	Type      string `cbor:"type" json:"type"`
	Version   uint64 `cbor:"v" json:"v"`
	Start     Anchor `cbor:"start" json:"start"`
	Champion  Side   `cbor:"champion" json:"champion"`
	Contender Side   `cbor:"contender" json:"contender"`
	Rule      Rule   `cbor:"rule" json:"rule"`
	// RatioPPM is the ratio to beat in force at Start.
	RatioPPM uint32      `cbor:"ratio_ppm" json:"ratio_ppm"`
	Envs     []EnvResult `cbor:"envs" json:"envs"`
	// Winner is "contender" or "champion"; EnvsWon counts the envs the
	// contender took.
	Winner  string `cbor:"winner" json:"winner"`
	EnvsWon uint32 `cbor:"envs_won" json:"envs_won"`
	// GeoMeanPPM is the floor of the geometric mean of the envs' RatePPM:
	// the ratio to beat a winning contender leaves behind (before the
	// frontier's clamp, see Frontier.Apply).
	GeoMeanPPM uint32 `cbor:"geomean_ppm" json:"geomean_ppm"`
}

// Encode verifies r and returns its canonical DAG-CBOR bytes and CID.
func Encode(r Result) ([]byte, cid.Cid, error) {
	if err := Verify(r); err != nil {
		return nil, cid.Undef, err
	}
	b, c, err := codec.Encode(r)
	if err != nil {
		return nil, cid.Undef, err
	}
	if len(b) > MaxResultBytes {
		return nil, cid.Undef, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(b), MaxResultBytes)
	}
	return b, c, nil
}

// Decode reads a duel result strictly: canonical DAG-CBOR with no unknown
// fields, of this type and version, and exactly what Recompute makes of its
// own challenges and outcomes.
func Decode(data []byte) (Result, error) {
	var r Result
	if len(data) > MaxResultBytes {
		return r, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(data), MaxResultBytes)
	}
	if err := codec.Unmarshal(data, &r); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := Verify(r); err != nil {
		return Result{}, err
	}
	return r, nil
}
