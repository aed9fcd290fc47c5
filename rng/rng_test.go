package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

func TestStreamIsSHA256CounterMode(t *testing.T) {
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(i)
	}
	s := New(seed)
	for block := uint64(0); block < 3; block++ {
		var in [40]byte
		copy(in[:], seed[:])
		binary.BigEndian.PutUint64(in[32:], block)
		want := sha256.Sum256(in[:])
		for w := 0; w < 4; w++ {
			if got, exp := s.Uint64(), binary.BigEndian.Uint64(want[w*8:]); got != exp {
				t.Fatalf("block %d word %d: got %x want %x", block, w, got, exp)
			}
		}
	}
}

func TestUniformRejectsLowRemainder(t *testing.T) {
	// n = 2^63 + 1 makes the threshold 2^63 - 1: roughly half the draws are
	// rejected, which a bug in the rejection test would show at once.
	var seed [32]byte
	n := uint64(1)<<63 + 1
	threshold := -n % n
	ref := New(seed)
	s := New(seed)
	for i := 0; i < 200; i++ {
		got := s.Uniform(n)
		var want uint64
		for {
			x := ref.Uint64()
			if x >= threshold {
				want = x % n
				break
			}
		}
		if got != want {
			t.Fatalf("draw %d: got %d want %d", i, got, want)
		}
	}
}

func TestUniformIsRoughlyUniform(t *testing.T) {
	s := New([32]byte{7})
	const n, draws = 10, 100000
	var counts [n]int
	for i := 0; i < draws; i++ {
		counts[s.Uniform(n)]++
	}
	for v, c := range counts {
		// Expected 10000, sd ~95: 6 sd bounds.
		if c < 9430 || c > 10570 {
			t.Errorf("value %d drawn %d times of %d", v, c, draws)
		}
	}
}

func TestShuffleIsAPermutation(t *testing.T) {
	s := New([32]byte{1})
	xs := []int{0, 1, 2, 3, 4, 5, 6, 7}
	s.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	seen := map[int]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	if len(seen) != 8 {
		t.Fatalf("not a permutation: %v", xs)
	}
}

func TestIntRangeBounds(t *testing.T) {
	s := New([32]byte{2})
	for i := 0; i < 10000; i++ {
		v := s.IntRange(-3, 3)
		if v < -3 || v > 3 {
			t.Fatalf("out of range: %d", v)
		}
	}
}

func TestDeriveSeparatesLabels(t *testing.T) {
	seed := [32]byte{9}
	if Derive(seed, "a") == Derive(seed, "b") {
		t.Fatal("different labels gave the same seed")
	}
	want := sha256.Sum256(append(seed[:], 'a'))
	if Derive(seed, "a") != want {
		t.Fatal("Derive is not SHA-256(seed || label)")
	}
}
