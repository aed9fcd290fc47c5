package keys

import (
	"fmt"
	"sync"
	"testing"
)

// TestNoncesAreNeverReused signs and prepares signatures from several
// goroutines at once, so that the pool is both warm and drained: every
// signature must verify, and no two may share a commitment R (a reused
// nonce would reveal the secret key).
func TestNoncesAreNeverReused(t *testing.T) {
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if k.s.scalar == nil || k.s.nonces == nil {
		t.Fatal("a generated key has no cached secret: the pool is not exercised")
	}
	const workers, each = 4, 200
	sigs := make([][]Signature, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if i%2 == 0 {
					if err := k.PrepareSignature(); err != nil {
						t.Error(err)
						return
					}
				}
				sig, err := k.Sign(fmt.Appendf(nil, "message %d/%d", w, i))
				if err != nil {
					t.Error(err)
					return
				}
				sigs[w] = append(sigs[w], sig)
			}
		})
	}
	wg.Wait()
	seen := map[[32]byte]string{}
	for w := range workers {
		for i, sig := range sigs[w] {
			at := fmt.Sprintf("%d/%d", w, i)
			if !Verify(k.Public(), fmt.Appendf(nil, "message %s", at), sig) {
				t.Fatalf("signature %s does not verify", at)
			}
			R := [32]byte(sig[:32])
			if prev, dup := seen[R]; dup {
				t.Fatalf("signatures %s and %s share their nonce", prev, at)
			}
			seen[R] = at
		}
	}
}

// TestSignWithDrainedPool signs with the pool emptied by hand, so that the
// nonce is made inline, and with a nonce left in the pool.
func TestSignWithDrainedPool(t *testing.T) {
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		select {
		case <-k.s.nonces:
		default:
		}
		msg := []byte{byte(round)}
		sig, err := k.Sign(msg)
		if err != nil || !Verify(k.Public(), msg, sig) {
			t.Fatalf("round %d: signature with a drained pool: %v", round, err)
		}
		n, err := newNonce()
		if err != nil {
			t.Fatal(err)
		}
		k.s.nonces <- n
		sig, err = k.Sign(msg)
		if err != nil || !Verify(k.Public(), msg, sig) || [32]byte(sig[:32]) != n.R {
			t.Fatalf("round %d: signature did not use the pooled nonce, or does not verify: %v", round, err)
		}
	}
}
