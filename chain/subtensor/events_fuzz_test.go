package subtensor

import (
	"errors"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
)

// FuzzDecodeEvents: no System.Events value panics the decoder, under a
// real runtime's metadata, subtensor's shapes and a hostile registry
// (hostileMeta: self-containing and empty types), and the walk stays
// within its step bound; its errors are malformed-SCALE errors; what
// decodes gives every extrinsic an outcome or an error, and a failure a
// refusal.
func FuzzDecodeEvents(f *testing.F) {
	sample, _ := sampleMetadata(f)
	st, _ := subtensorMetadata(f)
	hostile := hostileMetadata(f)
	f.Add(sampleEvents())
	f.Add(stEvents(f, libFailed(f, 2, moduleError(7, 79))))
	f.Add(stEvents(f, libFailed(f, 2, types.DispatchError{IsToken: true, TokenError: types.TokenError{IsWouldDie: true}})))
	f.Add(events(record(0, 0, 1, cat([]byte{3, 7, 79, 0, 0}, stInfo), 0), record(1, 7, 202, []byte{8}, 0)))
	f.Add(events(record(0, 7, 201, fill(1, 40), 0)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, m := range []*metadataV14{sample, st, hostile} {
			records, err := decodeEvents(m, raw)
			if err != nil {
				if !errors.Is(err, scale.ErrMalformed) {
					t.Fatalf("error not malformed SCALE: %v", err)
				}
				continue
			}
			for i := -1; i <= len(records); i++ {
				fail, err := outcome(records, i)
				if fail != nil && (err != nil || !chain.Refused(refusal(fail))) {
					t.Fatalf("extrinsic %d: %v %v", i, fail, err)
				}
			}
		}
	})
}
