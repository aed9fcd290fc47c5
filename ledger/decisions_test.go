package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/duel/dueltest"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// A store refuses a peer's block whose duel result does not recompute:
// Check is every store's decision check.
func TestStoreRefusesBadDuelResult(t *testing.T) {
	t.Parallel()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, err := keys.FromURI("//Bob")
	if err != nil {
		t.Fatal(err)
	}
	r := dueltest.SampleResult(t)
	r.GeoMeanPPM++
	bad, err := codec.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	h := record.Header{
		Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), TimeMS: 1,
		Transcripts: []codec.Link{}, Decisions: []codec.Link{codec.LinkTo(codec.Sum(bad))},
		Checkpoint: record.CheckpointOf(nil),
	}
	_, raw, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(raw, map[cid.Cid][]byte{codec.Sum(bad): bad})
	if !errors.Is(err, ledger.ErrInvalidBlock) || !strings.Contains(err.Error(), "geomean_ppm") {
		t.Fatalf("block with a bad duel result: %v", err)
	}
	// The same block with the result as recomputed is stored.
	r.GeoMeanPPM--
	good, _, err := duel.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	h.Decisions = []codec.Link{codec.LinkTo(codec.Sum(good))}
	if _, raw, _, err = record.Sign(h, k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(raw, map[cid.Cid][]byte{codec.Sum(good): good}); err != nil {
		t.Fatalf("block with a good duel result: %v", err)
	}
}
