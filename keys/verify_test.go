package keys

import (
	"bytes"
	"fmt"
	"math/big"
	"testing"

	"github.com/gtank/ristretto255"
	"github.com/vedhavyas/go-subkey/v2/sr25519"
)

// schnorrkelVerify is the verification Verify replaced: go-schnorrkel,
// through go-subkey, as Bittensor's own tooling checks signatures.
func schnorrkelVerify(pub PublicKey, msg []byte, sig Signature) bool {
	key, err := sr25519.Scheme{}.FromPublicKey(pub[:])
	if err != nil {
		return false
	}
	return key.Verify(msg, sig[:])
}

// order is ristretto255's group order ℓ, little-endian bytes of which a
// signature's scalar must be the canonical residue.
var order, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// altered returns a valid signature, message and key and every variation
// of them a forger or a bug could produce, each named.
func altered(t *testing.T, k *Hotkey, msg []byte) map[string][3][]byte {
	t.Helper()
	sig, err := k.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public()
	out := map[string][3][]byte{}
	add := func(name string, p, m, s []byte) { out[name] = [3][]byte{p, m, s} }
	clone := func(b []byte) []byte { return append([]byte(nil), b...) }
	add("valid", pub[:], msg, sig[:])
	for bit := 0; bit < 512; bit += 7 {
		s := clone(sig[:])
		s[bit/8] ^= 1 << (bit % 8)
		add(fmt.Sprintf("signature bit %d", bit), pub[:], msg, s)
	}
	for bit := 0; bit < 256; bit += 5 {
		p := clone(pub[:])
		p[bit/8] ^= 1 << (bit % 8)
		add(fmt.Sprintf("key bit %d", bit), p, msg, sig[:])
	}
	if len(msg) > 0 {
		m := clone(msg)
		m[len(m)-1] ^= 1
		add("message last byte", pub[:], m, sig[:])
		add("message cut", pub[:], msg[:len(msg)-1], sig[:])
	}
	add("message longer", pub[:], append(clone(msg), 0), sig[:])
	unmarked := clone(sig[:])
	unmarked[63] &^= 128
	add("marker cleared", pub[:], msg, unmarked)
	// s + ℓ: the same residue, not canonical.
	le := func(b []byte) *big.Int {
		r := make([]byte, len(b))
		for i := range b {
			r[len(b)-1-i] = b[i]
		}
		return new(big.Int).SetBytes(r)
	}
	sScalar := clone(sig[32:])
	sScalar[31] &^= 128
	wide := new(big.Int).Add(le(sScalar), order).FillBytes(make([]byte, 32))
	nc := clone(sig[:32])
	for i := range wide {
		nc = append(nc, wide[31-i])
	}
	nc[63] |= 128
	add("scalar plus the group order", pub[:], msg, nc)
	// The identity key: s·B = R holds for any s, so any (s·B, s) passes
	// the equation, and a verifier must refuse the key itself.
	sc := ristretto255.NewScalar().FromUniformBytes(bytes.Repeat([]byte{7}, 64))
	r := ristretto255.NewElement().ScalarBaseMult(sc).Encode(nil)
	forged := append(r, sc.Encode(nil)...)
	forged[63] |= 128
	add("identity key, forged", make([]byte, 32), msg, forged)
	add("zero signature", pub[:], msg, make([]byte, 64))
	return out
}

func TestVerifyAgreesWithSchnorrkel(t *testing.T) {
	alice, err := FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*Hotkey{alice, fresh} {
		for _, n := range []int{0, 1, 97, 4000} {
			msg := bytes.Repeat([]byte{byte(n)}, n)
			accepted := 0
			for name, c := range altered(t, k, msg) {
				var pub PublicKey
				var sig Signature
				copy(pub[:], c[0])
				copy(sig[:], c[2])
				got, want := Verify(pub, c[1], sig), schnorrkelVerify(pub, c[1], sig)
				if got != want {
					t.Errorf("%s, %d-byte message, %s: Verify %v, schnorrkel %v", k, n, name, got, want)
				}
				if name == "valid" && !got {
					t.Errorf("%s, %d-byte message: valid signature rejected", k, n)
				}
				if got {
					accepted++
				}
			}
			if accepted != 1 {
				t.Errorf("%s, %d-byte message: %d variations accepted", k, n, accepted)
			}
		}
	}
}

// TestVerifyingKeyCacheStaysBounded feeds more distinct keys than the
// cache holds: verdicts stay right, the cache stays at its bound.
func TestVerifyingKeyCacheStaysBounded(t *testing.T) {
	msg := []byte("block")
	var last *Hotkey
	var lastSig Signature
	for i := 0; i < maxCachedKeys+50; i++ {
		k, err := FromURI(fmt.Sprintf("//cache/%d", i))
		if err != nil {
			t.Fatal(err)
		}
		sig, err := k.Sign(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !Verify(k.Public(), msg, sig) {
			t.Fatalf("key %d: valid signature rejected", i)
		}
		if last != nil && Verify(k.Public(), msg, lastSig) {
			t.Fatalf("key %d: accepted key %d's signature", i, i-1)
		}
		last, lastSig = k, sig
	}
	verifyingKeys.mu.RLock()
	n := len(verifyingKeys.keys)
	verifyingKeys.mu.RUnlock()
	if n > maxCachedKeys {
		t.Fatalf("cache holds %d keys, bound %d", n, maxCachedKeys)
	}
	if !Verify(last.Public(), msg, lastSig) {
		t.Fatal("cached key: valid signature rejected")
	}
}

// FuzzVerifyAgreesWithSchnorrkel: on any key, message and signature bytes,
// Verify and go-schnorrkel agree.
func FuzzVerifyAgreesWithSchnorrkel(f *testing.F) {
	k, err := FromURI("//Alice")
	if err != nil {
		f.Fatal(err)
	}
	for _, msg := range [][]byte{nil, []byte("block"), bytes.Repeat([]byte{1}, 300)} {
		sig, err := k.Sign(msg)
		if err != nil {
			f.Fatal(err)
		}
		pub := k.Public()
		f.Add(pub[:], msg, sig[:])
	}
	f.Fuzz(func(t *testing.T, p, msg, s []byte) {
		var pub PublicKey
		var sig Signature
		copy(pub[:], p)
		copy(sig[:], s)
		if got, want := Verify(pub, msg, sig), schnorrkelVerify(pub, msg, sig); got != want {
			t.Fatalf("key %x, message %x, signature %x: Verify %v, schnorrkel %v", pub, msg, sig, got, want)
		}
	})
}
