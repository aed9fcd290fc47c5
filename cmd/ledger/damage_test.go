package main

import (
	"context"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
)

// swapTranscriptBytes overwrites the stored bytes of the closed store's
// transcript victim with those of donor: a record, but not its CID's. It
// returns the victim's CID and the bytes it now holds.
func swapTranscriptBytes(t *testing.T, dir string, victim, donor minerTranscript) (cid.Cid, []byte) {
	t.Helper()
	c, err := cid.Decode(victim.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	other, err := cid.Decode(donor.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok, err := ledgertest.Get(dir, ledgertest.ObjectKey(other))
	if err != nil || !ok {
		t.Fatalf("read %s: %v %v", other, ok, err)
	}
	if err := ledgertest.OverwriteObject(dir, c, raw); err != nil {
		t.Fatal(err)
	}
	return c, raw
}

// openChainStore opens a store at dir bound to the local chain c's
// network, as its validators' nodes bind theirs.
func openChainStore(t *testing.T, dir string, c *local.Chain) (*ledger.Store, record.Network) {
	t.Helper()
	ctx := context.Background()
	genesis, err := c.BlockHash(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	params, err := c.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	net := record.Network{Genesis: record.Hash(genesis), Netuid: params.Netuid}
	s, err := ledger.Open(dir, ledger.WithNetwork(net))
	if err != nil {
		t.Fatal(err)
	}
	return s, net
}
