package inference

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
)

// seedVectorID and seedVector are the worked example of spec/inference.md.
const (
	seedVectorID = "mult8.v1.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	seedVector   = 699443728
)

func TestSeedVector(t *testing.T) {
	id, err := challenge.Parse(seedVectorID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Seed(id)
	if err != nil {
		t.Fatal(err)
	}
	if got != seedVector {
		t.Fatalf("Seed(%s) = %d, want %d (spec/inference.md)", id, got, seedVector)
	}
}

func TestSeedIsFirstFourBytesWithTopBitCleared(t *testing.T) {
	for i := 0; i < 200; i++ {
		var s [32]byte
		s[0], s[31] = byte(i), byte(i*7)
		id, _ := challenge.New("sat", uint16(1+i%3), s)
		got, err := Seed(id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := id.MarshalBinary()
		sum := sha256.Sum256(b)
		want := int64(binary.BigEndian.Uint32(sum[:4]) &^ (1 << 31))
		if got != want || got < 0 || got > 1<<31-1 {
			t.Fatalf("Seed(%s) = %d, want %d", id, got, want)
		}
	}
	if _, err := Seed(challenge.ID{Env: "Bad"}); err == nil {
		t.Fatal("Seed of an invalid ID did not fail")
	}
}
