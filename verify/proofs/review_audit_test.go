package proofs_test

import (
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// TestConsistencyToAnEmptyLogChecksItsRoot: a log of size 0 has one root,
// SHA-256 of nothing, so a newer checkpoint of size 0 with another root is
// no log's, and no proof shows it consistent with anything (RFC 9162:
// equal sizes, equal roots). The validator signed it: only the checker
// can refuse it.
func TestConsistencyToAnEmptyLogChecksItsRoot(t *testing.T) {
	t.Parallel()
	k, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	empty := record.CheckpointOf(nil)
	h0 := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), Anchor: recordtest.Anchor(1), Checkpoint: empty}
	_, raw0, c0, err := record.Sign(h0, k)
	if err != nil {
		t.Fatal(err)
	}
	h1 := h0
	h1.Height, h1.Prev = 1, codec.LinkTo(c0)
	h1.Checkpoint.Root[0] ^= 1
	_, raw1, _, err := record.Sign(h1, k)
	if err != nil {
		t.Fatal(err)
	}
	p := &proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: raw0, Newer: raw1, Hashes: []record.Hash{}}
	if _, err := p.Verify(); !errors.Is(err, proofs.ErrProof) {
		t.Fatalf("consistency from the empty log to size 0 under root %s: %v, want ErrProof", h1.Checkpoint.Root, err)
	}
	// The same with the right root verifies.
	h1.Checkpoint = empty
	if _, raw1, _, err = record.Sign(h1, k); err != nil {
		t.Fatal(err)
	}
	p.Newer = raw1
	if _, err := p.Verify(); err != nil {
		t.Fatalf("empty to empty: %v", err)
	}
}
