package proofs_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// A hotkey that validates on two networks keeps a ledger on each. Its two
// blocks at one height are no equivocation, and no proof joins the two
// logs: each checks against one ledger's blocks, which the result names.
func TestConsistencyProofStaysInOneLedger(t *testing.T) {
	t.Parallel()
	k := recordtest.Hotkey(t, "//Alice")
	empty := record.CheckpointOf(nil)
	h0 := record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), Anchor: recordtest.Anchor(1), Checkpoint: empty}
	_, here0, c0, err := record.Sign(h0, k)
	if err != nil {
		t.Fatal(err)
	}
	h1 := h0
	h1.Height, h1.Prev = 1, codec.LinkTo(c0)
	_, here1, _, err := record.Sign(h1, k)
	if err != nil {
		t.Fatal(err)
	}
	p := &proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: here0, Newer: here1, Hashes: []record.Hash{}}
	proved, err := p.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if proved.Network == nil || *proved.Network != recordtest.Network {
		t.Fatalf("proved network %v, want %s", proved.Network, recordtest.Network)
	}

	other := record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}
	for name, older := range map[string]record.Header{
		"same height":  func() record.Header { h := h1; h.Net = other; return h }(),
		"lower height": func() record.Header { h := h0; h.Net = other; return h }(),
		"format 1":     func() record.Header { h := h0; h.Format, h.Net = record.BlockFormatV1, record.Network{}; return h }(),
	} {
		_, raw, _, err := record.Sign(older, k)
		if err != nil {
			t.Fatal(err)
		}
		p.Older = raw
		if _, err := p.Verify(); !errors.Is(err, proofs.ErrProof) || !strings.Contains(err.Error(), "two ledgers") || strings.Contains(err.Error(), "equivocated") {
			t.Errorf("%s: older block of another ledger: %v", name, err)
		}
	}
}

// Two different blocks of one validator at one height are no consistency.
// Of format 2, of one network, they are equivocation, and the error says
// so; of format 1 they name no network, may be the validator's on two
// networks, and the error says they prove no equivocation (it said the
// validator equivocated).
func TestConsistencyProofOfTwoBlocksAtOneHeight(t *testing.T) {
	t.Parallel()
	k := recordtest.Hotkey(t, "//Alice")
	for _, c := range []struct {
		format uint64
		net    record.Network
		says   string
		never  string
	}{
		{record.BlockFormat, recordtest.Network, "the validator equivocated", "no network"},
		{record.BlockFormatV1, record.Network{}, "name no network", "equivocated"},
	} {
		h := record.Header{Format: c.format, Net: c.net, Validator: k.Public(), Anchor: recordtest.Anchor(1), Checkpoint: record.CheckpointOf(nil)}
		_, older, _, err := record.Sign(h, k)
		if err != nil {
			t.Fatal(err)
		}
		h.TimeMS++
		_, newer, _, err := record.Sign(h, k)
		if err != nil {
			t.Fatal(err)
		}
		p := &proofs.ConsistencyProof{Type: proofs.ConsistencyType, Older: older, Newer: newer, Hashes: []record.Hash{}}
		if _, err := p.Verify(); !errors.Is(err, proofs.ErrProof) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), c.never) {
			t.Errorf("format %d: %v, want ErrProof saying %q", c.format, err, c.says)
		}
	}
}
