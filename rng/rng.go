// Package rng is the deterministic random stream every generator draws from
// (spec/randomness.md).
//
// The stream is SHA-256 in counter mode: block i is SHA-256(seed || BE64(i)),
// and the stream is block 0, block 1, ... concatenated. It is chosen over any
// library generator because it can be rebuilt from its spec in a few lines in
// any language, and because its output is fixed forever by that spec, not by a
// library's release. Every draw below is specified down to the rejection
// method; change none of them without bumping the versions of the
// environments that use them.
package rng

import (
	"crypto/sha256"
	"encoding/binary"
)

// Stream is a deterministic source of bits. It is not safe for concurrent
// use; give each goroutine its own Stream.
type Stream struct {
	seed    [32]byte
	counter uint64
	buf     [32]byte
	used    int
}

// New returns the stream for seed.
func New(seed [32]byte) *Stream {
	return &Stream{seed: seed, used: len([32]byte{})}
}

// Derive returns SHA-256(seed || label): the seed of an independent
// sub-stream, so that one part of a generator can change its number of draws
// without shifting the draws of another.
func Derive(seed [32]byte, label string) [32]byte {
	h := sha256.New()
	h.Write(seed[:])
	h.Write([]byte(label))
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func (s *Stream) refill() {
	var in [40]byte
	copy(in[:32], s.seed[:])
	binary.BigEndian.PutUint64(in[32:], s.counter)
	s.buf = sha256.Sum256(in[:])
	s.counter++
	s.used = 0
}

// Uint64 returns the next 8 bytes of the stream read big-endian.
func (s *Stream) Uint64() uint64 {
	if s.used+8 > len(s.buf) {
		s.refill()
	}
	v := binary.BigEndian.Uint64(s.buf[s.used:])
	s.used += 8
	return v
}

// Uniform returns an integer uniform in [0, n). It draws x = Uint64() until
// x >= (2^64 - n) mod n and returns x mod n (rejection of the low remainder,
// as OpenBSD's arc4random_uniform). n must be at least 1; n == 1 still
// consumes one draw so that the number of draws never depends on n's value.
func (s *Stream) Uniform(n uint64) uint64 {
	if n == 0 {
		panic("rng: Uniform(0)")
	}
	threshold := -n % n
	for {
		x := s.Uint64()
		if x >= threshold {
			return x % n
		}
	}
}

// IntRange returns an integer uniform in [lo, hi], both inclusive, as
// lo + Uniform(hi - lo + 1).
func (s *Stream) IntRange(lo, hi int64) int64 {
	if hi < lo {
		panic("rng: IntRange with hi < lo")
	}
	return lo + int64(s.Uniform(uint64(hi-lo)+1))
}

// Chance returns true with probability num/den, as Uniform(den) < num.
func (s *Stream) Chance(num, den uint64) bool {
	return s.Uniform(den) < num
}

// Shuffle permutes n items by Fisher-Yates from the top: for i from n-1 down
// to 1, swap(i, Uniform(i+1)).
func (s *Stream) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := int(s.Uniform(uint64(i) + 1))
		swap(i, j)
	}
}

// Pick returns the index of one of n items, as Uniform(n).
func (s *Stream) Pick(n int) int {
	return int(s.Uniform(uint64(n)))
}
