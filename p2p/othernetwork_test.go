package p2p

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// A hotkey that validates on two networks signs blocks on both. Gossip of
// the other network's block, or of a fork proof of two of its blocks, is
// refused and blamed on the forwarder: the node neither stores the block
// nor marks the validator as an equivocator.
func TestAnotherNetworksGossipIsRejected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := startFresh(t)
	k := recordtest.Hotkey(t, "//Alice")
	other := record.Network{Genesis: sha256.Sum256([]byte("another chain")), Netuid: recordtest.Network.Netuid}
	a, b := firstBlock(t, k, other, 1, 0), firstBlock(t, k, other, 2, 0)
	proofRaw := encodedForkProof(t, a, b)
	msg := bareMessage(t, a)
	// A block that links a transcript, sent without it: refused before
	// the node asks the forwarder for it (which it would not serve).
	bob := recordtest.Hotkey(t, "//Bob")
	bare := bareMessage(t, firstBlock(t, bob, other, 1, 1))

	topics := hostilePeer(t, ctx, n, wire.ForksTopic(0), wire.BlocksTopic(0))
	if err := topics[0].Publish(ctx, proofRaw); err != nil {
		t.Fatal(err)
	}
	if err := topics[1].Publish(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := topics[1].Publish(ctx, bare); err != nil {
		t.Fatal(err)
	}
	for n.Stats().Rejected < 3 {
		if ctx.Err() != nil {
			t.Fatalf("the node did not reject all three records: %+v", n.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := n.Stats(); st.Accepted != 0 || st.StoredFromGossip != 0 {
		t.Errorf("the node took another network's record: %+v", st)
	}
	for _, v := range []*keys.Hotkey{k, bob} {
		if _, err := n.store.Head(v.Public()); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("another network's block was stored: %v", err)
		}
	}
	for p, err := range n.store.ForkProofs() {
		t.Errorf("fork proof %v stored (err %v)", p.CID, err)
	}
}
