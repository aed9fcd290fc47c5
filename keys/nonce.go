package keys

import (
	"fmt"

	schnorrkel "github.com/ChainSafe/go-schnorrkel"
	"github.com/gtank/ristretto255"
)

// A nonce is a signature's secret random scalar r with its commitment
// R = r·B, encoded. schnorrkel (v1.1.0, whose steps signCached follows)
// draws r uniformly at random, independently of the message, so a nonce
// can be made before the message is known: the base-point multiplication,
// about two thirds of a signature, then runs while the signer waits for
// something else (an appender, for the previous block's fsync; see
// PrepareSignature). A nonce is as secret as the key and is used once: it
// leaves the pool by a channel receive, which hands it to exactly one
// signature.
type nonce struct {
	r *ristretto255.Scalar
	R [32]byte
}

func newNonce() (nonce, error) {
	r, err := schnorrkel.NewRandomScalar()
	if err != nil {
		return nonce{}, fmt.Errorf("sign: %w", err)
	}
	n := nonce{r: r}
	ristretto255.NewElement().ScalarBaseMult(r).Encode(n.R[:0])
	return n, nil
}

// noncePool holds at most one nonce made ahead.
type noncePool chan nonce

func newNoncePool() noncePool { return make(noncePool, 1) }

// take returns the nonce made ahead if there is one, else makes one.
func (p noncePool) take() (nonce, error) {
	select {
	case n := <-p:
		return n, nil
	default:
		return newNonce()
	}
}

// fill makes a nonce ahead unless one is waiting.
func (p noncePool) fill() error {
	if len(p) > 0 {
		return nil
	}
	n, err := newNonce()
	if err != nil {
		return err
	}
	select {
	case p <- n:
	default: // another fill got there first; n is dropped unused
	}
	return nil
}

// PrepareSignature makes the random part of k's next signature now, so
// that the next Sign costs about a third as much: for a signer with idle
// time before a signature it is waiting to make, as the appender has
// while a block's fsync runs. It is a no-op for keys without a cached
// secret, and when a prepared part is already waiting.
func (k *Hotkey) PrepareSignature() error {
	if k.s.nonces == nil {
		return nil
	}
	return k.s.nonces.fill()
}
