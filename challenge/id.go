// Package challenge names challenges: a self-describing ID made of an
// environment name, its version and a 32-byte seed, and the derivation of
// that seed from public chain randomness (spec/challenge-id.md).
//
// Everything an environment generates is a function of the ID alone, so the
// ID is all a peer or auditor needs to regenerate a task.
package challenge

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/internal/cborbytes"
)

// SeedSize is the length of a challenge seed in bytes.
const SeedSize = 32

// MaxEnvName bounds an environment name's length.
const MaxEnvName = 32

// ErrMalformed is wrapped by every parse error of this package.
var ErrMalformed = errors.New("malformed challenge ID")

// ID identifies one challenge forever.
type ID struct {
	Env     string
	Version uint16
	Seed    [SeedSize]byte
}

// New checks env and returns the ID.
func New(env string, version uint16, seed [SeedSize]byte) (ID, error) {
	if err := CheckEnvName(env); err != nil {
		return ID{}, err
	}
	if version == 0 {
		return ID{}, fmt.Errorf("%w: version must be at least 1", ErrMalformed)
	}
	return ID{Env: env, Version: version, Seed: seed}, nil
}

// CheckEnvName enforces the name rule: 1 to 32 characters from [a-z0-9_],
// starting with a letter.
func CheckEnvName(name string) error {
	if len(name) == 0 || len(name) > MaxEnvName {
		return fmt.Errorf("%w: env name must be 1 to %d characters, got %d", ErrMalformed, MaxEnvName, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9' || c == '_') && i > 0:
		default:
			return fmt.Errorf("%w: env name %q: character %d must be [a-z] first, then [a-z0-9_]", ErrMalformed, name, i)
		}
	}
	return nil
}

// String returns the canonical text form "<env>.v<version>.<seed as 64
// lower-case hex>", e.g. "mult8.v1.00ff...".
func (id ID) String() string {
	return id.Env + ".v" + strconv.FormatUint(uint64(id.Version), 10) + "." + hex.EncodeToString(id.Seed[:])
}

// Parse reads the canonical text form and nothing else: upper-case hex,
// leading zeros in the version or missing parts are errors, so that every ID
// has exactly one text form.
func Parse(s string) (ID, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return ID{}, fmt.Errorf("%w: %q: want <env>.v<version>.<64 hex>", ErrMalformed, clip(s))
	}
	env, ver, seedHex := parts[0], parts[1], parts[2]
	if !strings.HasPrefix(ver, "v") || len(ver) < 2 || (ver[1] == '0') {
		return ID{}, fmt.Errorf("%w: %q: version must be v1, v2, ...", ErrMalformed, clip(s))
	}
	v, err := strconv.ParseUint(ver[1:], 10, 16)
	if err != nil {
		return ID{}, fmt.Errorf("%w: %q: version: %v", ErrMalformed, clip(s), err)
	}
	seed, err := ParseSeed(seedHex)
	if err != nil {
		return ID{}, err
	}
	return New(env, uint16(v), seed)
}

// ParseSeed reads 64 lower-case hex characters.
func ParseSeed(s string) ([SeedSize]byte, error) {
	var seed [SeedSize]byte
	if len(s) != 2*SeedSize {
		return seed, fmt.Errorf("%w: seed must be %d hex characters, got %d", ErrMalformed, 2*SeedSize, len(s))
	}
	if strings.ToLower(s) != s {
		return seed, fmt.Errorf("%w: seed must be lower-case hex", ErrMalformed)
	}
	if _, err := hex.Decode(seed[:], []byte(s)); err != nil {
		return seed, fmt.Errorf("%w: seed: %v", ErrMalformed, err)
	}
	return seed, nil
}

// MarshalBinary returns the binary form: u8 len(env) || env || BE16 version
// || seed.
func (id ID) MarshalBinary() ([]byte, error) {
	if err := CheckEnvName(id.Env); err != nil {
		return nil, err
	}
	b := make([]byte, 0, 1+len(id.Env)+2+SeedSize)
	b = append(b, byte(len(id.Env)))
	b = append(b, id.Env...)
	b = binary.BigEndian.AppendUint16(b, id.Version)
	return append(b, id.Seed[:]...), nil
}

// UnmarshalBinary reads the binary form; trailing bytes are an error.
func (id *ID) UnmarshalBinary(b []byte) error {
	if len(b) < 1 {
		return fmt.Errorf("%w: empty", ErrMalformed)
	}
	n := int(b[0])
	if len(b) != 1+n+2+SeedSize {
		return fmt.Errorf("%w: binary form of %d bytes, want %d for a %d-byte env name", ErrMalformed, len(b), 1+n+2+SeedSize, n)
	}
	var seed [SeedSize]byte
	copy(seed[:], b[1+n+2:])
	parsed, err := New(string(b[1:1+n]), binary.BigEndian.Uint16(b[1+n:]), seed)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// MarshalCBOR encodes the binary form as a CBOR byte string.
func (id ID) MarshalCBOR() ([]byte, error) {
	b, err := id.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return cborbytes.Marshal(b), nil
}

// UnmarshalCBOR reads what MarshalCBOR writes (and, as fxamacker reads
// them, other forms of a byte string, which canonical decoding refuses).
func (id *ID) UnmarshalCBOR(data []byte) error {
	b, err := cborbytes.Unmarshal(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return id.UnmarshalBinary(b)
}

// MarshalText writes the canonical text form (used by JSON).
func (id ID) MarshalText() ([]byte, error) {
	if err := CheckEnvName(id.Env); err != nil {
		return nil, err
	}
	return []byte(id.String()), nil
}

// UnmarshalText reads the canonical text form.
func (id *ID) UnmarshalText(b []byte) error {
	parsed, err := Parse(string(b))
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
