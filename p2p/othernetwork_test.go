package p2p

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p"

	"github.com/affine-ledger/ledger/codec"
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
	sign := func(timeMS int64) []byte {
		_, raw, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: other, Validator: k.Public(), TimeMS: timeMS,
			Anchor: recordtest.Anchor(1), Transcripts: nil, Checkpoint: record.CheckpointOf(nil)}, k)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	a, b := sign(1), sign(2)
	proof, err := record.NewForkProof(a, b)
	if err != nil {
		t.Fatal(err)
	}
	proofRaw, _, err := proof.Encode()
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wire.EncodeBlockMessage(a, [][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	// A block that links a transcript, sent without it: refused before
	// the node asks the forwarder for it (which it would not serve).
	bob := recordtest.Hotkey(t, "//Bob")
	tr := recordtest.Transcript(bob.Public(), 0, 0)
	_, tc, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	_, linking, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: other, Validator: bob.Public(), TimeMS: 1,
		Anchor: recordtest.Anchor(1), Transcripts: []codec.Link{codec.LinkTo(tc)}, Checkpoint: record.CheckpointOf([]cid.Cid{tc})}, bob)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := wire.EncodeBlockMessage(linking, [][]byte{})
	if err != nil {
		t.Fatal(err)
	}

	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	topics := hostileTopics(t, ctx, h, n, wire.ForksTopic(0), wire.BlocksTopic(0))
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
			t.Fatalf("the node did not reject both records: %+v", n.Stats())
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
