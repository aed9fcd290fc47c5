package wire

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// FuzzRequestCounts: a sync request or response is accepted exactly when
// its counts are within spec/p2p.md's limits. The seeds put every count at
// its bound and one past it, so `go test` checks each bound both ways.
func FuzzRequestCounts(f *testing.F) {
	for _, n := range []uint16{0, 1, MaxBlocksPerRequest, MaxBlocksPerRequest + 1, MaxHeads, MaxHeads + 1, MaxErrorMessage, MaxErrorMessage + 1} {
		f.Add(uint8(0), n)
	}
	for _, n := range []uint16{MaxHeads, MaxHeads + 1, MaxForks, MaxForks + 1, MaxObjectsPerRequest, MaxObjectsPerRequest + 1} {
		for kind := uint8(1); kind < 6; kind++ {
			f.Add(kind, n)
		}
	}
	c := codec.LinkTo(codec.Sum([]byte("x")))
	f.Fuzz(func(t *testing.T, kind uint8, n uint16) {
		count := int(n)
		var (
			data  []byte
			limit int
			min   = 0
			isReq = true
		)
		switch kind % 6 {
		case 0:
			data, limit, min = mustMarshal(t, Request{Blocks: &BlocksRequest{Count: uint64(count)}}), MaxBlocksPerRequest, 1
		case 1:
			cids := make([]codec.Link, count)
			for i := range cids {
				cids[i] = c
			}
			data, limit, min = mustMarshal(t, Request{Objects: &ObjectsRequest{CIDs: cids}}), MaxObjectsPerRequest, 1
		case 2:
			heads := make([]Head, count)
			for i := range heads {
				var v keys.PublicKey
				binary.BigEndian.PutUint32(v[:], uint32(i))
				heads[i] = Head{Validator: v, CID: c}
			}
			data, limit = mustMarshal(t, Request{Status: &Status{Heads: heads}}), MaxHeads
		case 3:
			forks := make([]codec.Link, count)
			for i := range forks {
				forks[i] = c
			}
			data, limit = mustMarshal(t, Request{Status: &Status{Forks: forks}}), MaxForks
		case 4:
			data, limit, isReq = mustMarshal(t, Response{Blocks: &BlocksResponse{Blocks: make([][]byte, count)}}), MaxBlocksPerRequest, false
		case 5:
			data, limit, isReq = mustMarshal(t, Response{Error: &ErrorResponse{Code: CodeBusy, Message: strings.Repeat("e", count)}}), MaxErrorMessage, false
		}
		var err error
		if isReq {
			_, err = DecodeRequest(data)
		} else {
			_, err = DecodeResponse(data)
		}
		if want := count >= min && count <= limit; (err == nil) != want {
			t.Fatalf("kind %d with %d (allowed %d to %d): %v", kind%6, count, min, limit, err)
		}
	})
}
