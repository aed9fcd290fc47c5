// Package keys holds a validator's identity: a Bittensor-compatible sr25519
// hotkey (spec/signatures.md).
//
// Signatures use schnorrkel with the "substrate" signing context over the raw
// message bytes, which is what Bittensor's Keypair.sign and Keypair.verify
// do, so our signatures verify there and theirs verify here. Addresses are
// SS58 with prefix 42.
//
// A hotkey lives in a key file (WriteKeyFile, ReadKeyFile): JSON with mode
// 0600 that readers refuse when group or others may access it. Keys come
// from Generate, from a mnemonic (FromMnemonic, FromMnemonicPassword with
// a password), from a btcli wallet file (ReadBtcliFile) or, for tests,
// from a development URI (FromURI). Errors about secret material name
// fields and positions, never values.
package keys

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	schnorrkel "github.com/ChainSafe/go-schnorrkel"
	"github.com/gtank/ristretto255"
	subkey "github.com/vedhavyas/go-subkey/v2"
	"github.com/vedhavyas/go-subkey/v2/sr25519"

	"github.com/affine-ledger/ledger/internal/cborbytes"
)

// SS58Prefix is Bittensor's (the generic Substrate) address format.
const SS58Prefix = 42

// SignatureSize is the length of an sr25519 signature.
const SignatureSize = 64

// ErrBadAddress is wrapped by every address parse error.
var ErrBadAddress = errors.New("bad SS58 address")

// PublicKey is a hotkey's 32-byte sr25519 public key. It prints and parses as
// an SS58 address and encodes in CBOR as a 32-byte string.
type PublicKey [32]byte

// Signature is an sr25519 signature.
type Signature [SignatureSize]byte

// SS58 returns the address with prefix 42 (starting with 5).
func (p PublicKey) SS58() string { return subkey.SS58Encode(p[:], SS58Prefix) }

// String returns the SS58 address.
func (p PublicKey) String() string { return p.SS58() }

// Short returns an abbreviated address for logs and tables: "5Grw...utQY".
func (p PublicKey) Short() string {
	s := p.SS58()
	return s[:4] + "..." + s[len(s)-4:]
}

// ParseSS58 reads an address and insists on prefix 42, in its one-byte
// form: it accepts exactly what SS58 returns.
func ParseSS58(s string) (PublicKey, error) {
	var p PublicKey
	if len(s) < 40 || len(s) > 60 {
		// Not quoted: a secret seed (64 or 66 hex digits) or a mnemonic
		// pasted in the wrong place would be repeated into logs.
		return p, fmt.Errorf("%w: %d characters, an address has 48", ErrBadAddress, len(s))
	}
	network, pub, err := subkey.SS58Decode(s)
	if err != nil {
		return p, fmt.Errorf("%w: %q: %v", ErrBadAddress, s, err)
	}
	if network != SS58Prefix {
		return p, fmt.Errorf("%w: %q has network prefix %d, want %d", ErrBadAddress, s, network, SS58Prefix)
	}
	if len(pub) != len(p) {
		return p, fmt.Errorf("%w: %q holds %d key bytes, want 32", ErrBadAddress, s, len(pub))
	}
	copy(p[:], pub)
	// SS58's two-byte prefix form can spell 42 too (bytes 4a 80); only
	// the one-byte form is the address (spec/signatures.md), so that an
	// address compares as text.
	if p.SS58() != s {
		return PublicKey{}, fmt.Errorf("%w: %q is not in canonical form (prefix %d is one byte)", ErrBadAddress, s, SS58Prefix)
	}
	return p, nil
}

// MarshalText writes the SS58 address (JSON, flags, logs).
func (p PublicKey) MarshalText() ([]byte, error) { return []byte(p.SS58()), nil }

// UnmarshalText reads an SS58 address.
func (p *PublicKey) UnmarshalText(b []byte) error {
	parsed, err := ParseSS58(string(b))
	if err != nil {
		return err
	}
	*p = parsed
	return nil
}

// MarshalCBOR writes the 32 raw bytes as a byte string.
func (p PublicKey) MarshalCBOR() ([]byte, error) { return cborbytes.Marshal(p[:]), nil }

// UnmarshalCBOR reads a 32-byte byte string.
func (p *PublicKey) UnmarshalCBOR(data []byte) error {
	b, err := cborbytes.Unmarshal(data)
	if err != nil {
		return fmt.Errorf("public key: %w", err)
	}
	if len(b) != len(p) {
		return fmt.Errorf("public key: %d bytes, want 32", len(b))
	}
	copy(p[:], b)
	return nil
}

// MarshalCBOR writes the 64 raw bytes as a byte string.
func (s Signature) MarshalCBOR() ([]byte, error) { return cborbytes.Marshal(s[:]), nil }

// UnmarshalCBOR reads a 64-byte byte string.
func (s *Signature) UnmarshalCBOR(data []byte) error {
	b, err := cborbytes.Unmarshal(data)
	if err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	if len(b) != len(s) {
		return fmt.Errorf("signature: %d bytes, want %d", len(b), SignatureSize)
	}
	copy(s[:], b)
	return nil
}

// Hotkey is a secret key. It prints as its address whatever the verb
// (Format) and has no exported fields, so JSON and CBOR see an empty
// object.
type Hotkey struct {
	pub PublicKey
	// s is two pointers away from the secret: where fmt prints a Hotkey
	// without calling its methods (one in an unexported struct field), it
	// dereferences at most one pointer (given a verb pointers do not
	// take, such as %s, it prints the pointee's fields with %v) and
	// prints every pointer below that as an address.
	s *sealed
}

// sealed only points at the secret material (see Hotkey.s).
type sealed struct{ *secretParts }

// secretParts is a hotkey's secret material. Read-only once made, except
// the nonce pool, which is safe for concurrent use.
type secretParts struct {
	pair subkey.KeyPair
	// seed is the 32-byte mini secret key (what key files store), when
	// hasSeed.
	seed    [32]byte
	hasSeed bool
	// scalar is the secret scalar, for signing without schnorrkel's
	// SecretKey.Sign, which recomputes and re-encodes the public key (a
	// base-point multiplication and an inverse square root, about half
	// the cost of a signature) on every call. Nil for keys without a mini
	// secret (soft-derived), which sign through pair.
	scalar *ristretto255.Scalar
	// nonces holds a signature nonce made ahead (nonce.go), for keys with
	// a scalar.
	nonces noncePool
}

// Generate makes a new random hotkey.
func Generate() (*Hotkey, error) {
	pair, err := sr25519.Scheme{}.Generate()
	if err != nil {
		return nil, fmt.Errorf("generate hotkey: %w", err)
	}
	return wrap(pair)
}

// FromSeed makes the hotkey of a 32-byte mini secret key.
func FromSeed(seed [32]byte) (*Hotkey, error) {
	pair, err := sr25519.Scheme{}.FromSeed(seed[:])
	if err != nil {
		return nil, fmt.Errorf("hotkey from seed: %w", err)
	}
	return wrap(pair)
}

// FromURI derives a hotkey from a Substrate secret URI: a mnemonic, a 0x hex
// seed, or either with derivation paths, and dev keys such as "//Alice".
// Errors never include the URI, which is a secret.
func FromURI(uri string) (*Hotkey, error) {
	pair, err := subkey.DeriveKeyPair(sr25519.Scheme{}, uri)
	if err != nil {
		return nil, errors.New("hotkey from secret URI: the phrase, seed or derivation path is not valid")
	}
	return wrap(pair)
}

func wrap(pair subkey.KeyPair) (*Hotkey, error) {
	k := &Hotkey{s: &sealed{&secretParts{pair: pair}}}
	copy(k.pub[:], pair.Public())
	if seed := pair.Seed(); len(seed) == 32 {
		copy(k.s.seed[:], seed)
		k.s.hasSeed = true
		k.s.scalar = secretScalar(k.s.seed, k.pub)
		k.s.nonces = newNoncePool()
	}
	return k, nil
}

// secretScalar expands a mini secret key the way go-subkey does
// (ExpandEd25519) and returns its scalar, or nil unless that scalar's
// public key is pub: signing must never use a secret that disagrees with
// the public key the key reports.
func secretScalar(seed [32]byte, pub PublicKey) *ristretto255.Scalar {
	mini, err := schnorrkel.NewMiniSecretKeyFromRaw(seed)
	if err != nil {
		return nil
	}
	x, err := schnorrkel.ScalarFromBytes(mini.ExpandEd25519().Encode())
	if err != nil {
		return nil
	}
	if !bytes.Equal(ristretto255.NewElement().ScalarBaseMult(x).Encode(nil), pub[:]) {
		return nil
	}
	return x
}

// Public returns the public key.
func (k *Hotkey) Public() PublicKey { return k.pub }

// Seed returns the 32-byte mini secret key, or false for a key derived with
// a soft junction, which has no seed.
func (k *Hotkey) Seed() ([32]byte, bool) { return k.s.seed, k.s.hasSeed }

// Sign signs msg with the "substrate" context. sr25519 signatures are
// randomized: signing twice gives two different valid signatures.
func (k *Hotkey) Sign(msg []byte) (Signature, error) {
	if k.s.scalar != nil {
		return k.signCached(msg)
	}
	var sig Signature
	raw, err := k.s.pair.Sign(msg)
	if err != nil {
		return sig, fmt.Errorf("sign: %w", err)
	}
	copy(sig[:], raw)
	return sig, nil
}

// signCached is schnorrkel's SecretKey.Sign (go-schnorrkel v1.1.0,
// sign.go) step for step, with the cached secret scalar and public key:
// transcript = signing context "substrate" over msg, then proto-name
// "Schnorr-sig", sign:pk = the public key; random nonce r, R = r·B (made
// ahead, see nonce.go), sign:R = R; c = the transcript's 64-byte "sign:c"
// challenge reduced mod l; s = c·x + r; signature = R || s with the top bit of the last byte set
// (schnorrkel's marker).
func (k *Hotkey) signCached(msg []byte) (Signature, error) {
	var sig Signature
	t := schnorrkel.NewSigningContext([]byte("substrate"), msg)
	t.AppendMessage([]byte("proto-name"), []byte("Schnorr-sig"))
	t.AppendMessage([]byte("sign:pk"), k.pub[:])
	n, err := k.s.nonces.take()
	if err != nil {
		return sig, err
	}
	copy(sig[:32], n.R[:])
	t.AppendMessage([]byte("sign:R"), sig[:32])
	c := ristretto255.NewScalar().FromUniformBytes(t.ExtractBytes([]byte("sign:c"), 64))
	s := ristretto255.NewScalar().Multiply(c, k.s.scalar)
	s.Add(s, n.r)
	s.Encode(sig[32:32])
	sig[63] |= 128
	return sig, nil
}

// String returns "hotkey " and the address.
func (k Hotkey) String() string { return "hotkey " + k.pub.SS58() }

// GoString keeps %#v from printing the fields.
func (k Hotkey) GoString() string { return k.String() }

// Format prints String for every verb and flag: fmt's own rendering of
// the verbs that do not call String (%d, %o, %t, ...) would print the
// fields. The methods are on the value so that a Hotkey printed by value
// is covered too.
func (k Hotkey) Format(f fmt.State, _ rune) { io.WriteString(f, k.String()) }
