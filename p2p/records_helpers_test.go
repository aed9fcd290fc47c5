package p2p

import (
	"context"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// firstBlock signs k's block at height 0 of network net at timeMS,
// linking the first n transcripts of recordtest (not stored anywhere),
// with the checkpoint they make.
func firstBlock(t testing.TB, k *keys.Hotkey, net record.Network, timeMS int64, n int) []byte {
	t.Helper()
	h := record.Header{Format: record.BlockFormat, Net: net, Validator: k.Public(), TimeMS: timeMS, Anchor: recordtest.Anchor(1)}
	var cids []cid.Cid
	for i := range n {
		tr := recordtest.Transcript(k.Public(), uint64(i), 0)
		_, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		cids = append(cids, c)
		h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
	}
	h.Checkpoint = record.CheckpointOf(cids)
	_, raw, _, err := record.Sign(h, k)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// bareMessage is the gossip message of a block without its objects.
func bareMessage(t testing.TB, block []byte) []byte {
	t.Helper()
	msg, err := wire.EncodeBlockMessage(block, [][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// hostilePeer is a fresh loopback host joined to n's named topics
// (hostileTopics).
func hostilePeer(t *testing.T, ctx context.Context, n *Network, names ...string) []*pubsub.Topic {
	t.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return hostileTopics(t, ctx, h, n, names...)
}

// encodedForkProof is the encoded fork proof of two signed blocks.
func encodedForkProof(t testing.TB, a, b []byte) []byte {
	t.Helper()
	proof, err := record.NewForkProof(a, b)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := proof.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
