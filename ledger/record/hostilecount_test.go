package record

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestClaimedLengthsAllocateLittle: an array head may claim as many
// elements as bytes follow it, and each element of a conversation takes
// 32 bytes of memory against one of input. A transcript of 1 MB whose
// conversation claimed 1M messages made both decoders allocate for all
// of them (32 MiB each) before the first element failed to decode.
// Memory now follows the elements actually read: the direct decoder
// refuses a count past the record's bound before allocating, and the
// codec's grows its slices as elements decode.
func TestClaimedLengthsAllocateLittle(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not the point under the race detector")
	}
	tr := randomTranscript(rand.New(rand.NewPCG(1, 2)))
	tr.Conversation, tr.TurnRewards = nil, nil
	good, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"conversation", "turn_rewards"} {
		// The key's encoding, then its empty array.
		at := bytes.Index(good, append([]byte{0x60 | byte(len(key))}, key...))
		if at < 0 {
			t.Fatalf("no key %q", key)
		}
		at += 1 + len(key)
		if good[at] != 0x80 {
			t.Fatalf("%s: 0x%02x after the key, want an empty array", key, good[at])
		}
		const claimed = 1_000_000
		hostile := append(append([]byte{}, good[:at]...), 0x9a)
		hostile = binary.BigEndian.AppendUint32(hostile, claimed)
		// Each 0xff, which no element may be: decoding fails at the first.
		hostile = append(hostile, bytes.Repeat([]byte{0xff}, claimed)...)
		hostile = append(hostile, good[at+1:]...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := DecodeTranscript(hostile)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: a transcript with %d bytes 0xff for elements decoded", key, claimed)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Fatalf("%s claiming %d elements: decoding allocated %d MiB", key, claimed, got>>20)
		}
	}
}
