package keys

import (
	"sync"

	"github.com/oasisprotocol/curve25519-voi/primitives/sr25519"
)

// Verification uses curve25519-voi's sr25519 rather than go-schnorrkel,
// which signing and key derivation still use: it checks the same equation
// (s·B = R + c·A over ristretto255, with schnorrkel's transcript, marker bit
// and canonical encodings) in under half the time, and a validator checks
// a signature on every block it audits, stores or relays.
// TestVerifyAgreesWithSchnorrkel and FuzzVerifyAgreesWithSchnorrkel hold
// the two to the same verdicts.

var substrate = sr25519.NewSigningContext([]byte("substrate"))

// Verify reports whether sig is pub's signature of msg under the
// "substrate" context.
func Verify(pub PublicKey, msg []byte, sig Signature) bool {
	key, ok := verifyingKeys.get(pub)
	if !ok {
		return false
	}
	var s sr25519.Signature
	if err := s.UnmarshalBinary(sig[:]); err != nil {
		return false
	}
	return key.Verify(substrate.NewTranscriptBytes(msg), &s)
}

// verifyingKeys keeps public keys decompressed: decompression is a
// quarter of a verification, and the keys a node checks are a few
// validators' over and over.
var verifyingKeys = keyCache{keys: map[PublicKey]*sr25519.PublicKey{}}

// maxCachedKeys bounds the cache: a peer sending blocks under ever new keys
// costs one decompression each, as without a cache, and no memory.
const maxCachedKeys = 1024

type keyCache struct {
	mu   sync.RWMutex
	keys map[PublicKey]*sr25519.PublicKey
}

// get returns pub decompressed, false if it is not a ristretto255 point or
// is the identity (as go-schnorrkel refuses it: s·B = R then holds for
// every s, so anyone could sign for it; its only encoding is all zeros).
func (c *keyCache) get(pub PublicKey) (*sr25519.PublicKey, bool) {
	if pub == (PublicKey{}) {
		return nil, false
	}
	c.mu.RLock()
	key, ok := c.keys[pub]
	c.mu.RUnlock()
	if ok {
		return key, true
	}
	key, err := sr25519.NewPublicKeyFromBytes(pub[:])
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	if len(c.keys) >= maxCachedKeys {
		for k := range c.keys {
			delete(c.keys, k) // any one: map order is unspecified
			break
		}
	}
	c.keys[pub] = key
	c.mu.Unlock()
	return key, true
}
