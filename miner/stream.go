package miner

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// keyDomain separates the miner's request keys from every other hash.
const keyDomain = "ledger/miner/request/v1"

// requestKey identifies a request for the purpose of drawing its
// randomness:
//
//	SHA-256(keyDomain || 0x00 || BE64 minerSeed || u8 hasSeed || BE64 requestSeed ||
//	        for each message: BE32 len(role) || role || BE32 len(content) || content)
//
// Two requests with the same seed field and messages get the same key, so a
// miner answers them alike, as a model at temperature 0 would.
func requestKey(minerSeed uint64, requestSeed *int64, messages []envs.Message) [32]byte {
	h := sha256.New()
	h.Write([]byte(keyDomain))
	h.Write([]byte{0})
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], minerSeed)
	h.Write(b[:])
	if requestSeed != nil {
		h.Write([]byte{1})
		binary.BigEndian.PutUint64(b[:], uint64(*requestSeed))
	} else {
		h.Write([]byte{0})
		b = [8]byte{}
	}
	h.Write(b[:])
	for _, m := range messages {
		writeString(h, m.Role)
		writeString(h, m.Content)
	}
	var key [32]byte
	h.Sum(key[:0])
	return key
}

func writeString(h interface{ Write([]byte) (int, error) }, s string) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// answerStream draws what the reply says; it is the same on every attempt
// of a request, so a retried request gets the same answer.
func answerStream(key [32]byte) *rng.Stream {
	return rng.New(rng.Derive(key, "answer"))
}

// faultStream draws whether an attempt fails. It depends on how many times
// the same request was seen before, so faults are transient the way real
// ones are: a retry draws again.
func faultStream(key [32]byte, attempt uint64) *rng.Stream {
	return rng.New(rng.Derive(key, "fault/"+strconv.FormatUint(attempt, 10)))
}
