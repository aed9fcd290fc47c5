package p2p

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// A fork proof of format 1 holds two format-1 blocks, which name no
// network: they may be one honest validator's blocks on two networks. It
// decodes and verifies, as every record an earlier version wrote stays
// checkable, but it proves no equivocation, and no node takes, makes or
// forwards one (spec/p2p.md).

// format1Blocks signs two format-1 blocks of k at height 0, in CID order.
func format1Blocks(t *testing.T, k *keys.Hotkey) ([]byte, []byte) {
	t.Helper()
	sign := func(timeMS int64) []byte { return recordtest.BlockV1(t, k, timeMS) }
	a, b := sign(1), sign(2)
	if bytes.Compare(codec.Sum(a).Bytes(), codec.Sum(b).Bytes()) > 0 {
		a, b = b, a
	}
	return a, b
}

// TestFormat1ForkProofGossipIsRejected: gossiped, the proof is refused and
// blamed on the forwarder, and the validator is not marked.
func TestFormat1ForkProofGossipIsRejected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := startFresh(t)
	k := recordtest.Hotkey(t, "//Alice")
	a, b := format1Blocks(t, k)
	raw, _, err := codec.Encode(&record.ForkProof{Format: record.ForkProofFormatV1, Validator: k.Public(), A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record.DecodeForkProof(raw); err != nil {
		t.Fatalf("test setup: the proof does not verify: %v", err)
	}
	topic := hostilePeer(t, ctx, n, wire.ForksTopic(0))[0]
	if err := topic.Publish(ctx, raw); err != nil {
		t.Fatal(err)
	}
	for n.Stats().Rejected < 1 {
		if ctx.Err() != nil {
			t.Fatalf("the node did not reject the proof: %+v", n.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := n.Stats(); st.Accepted != 0 {
		t.Errorf("the node took a format-1 fork proof: %+v", st)
	}
	if _, err := n.store.Head(k.Public()); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("a block of the proof was stored: %v", err)
	}
	for p, err := range n.store.ForkProofs() {
		t.Errorf("fork proof %v stored (err %v)", p.CID, err)
	}
}

// TestFormat1ForkProofOfferedIsPunished: offered in a peer's status and
// fetched, the proof is refused and the peer banned, as for any record an
// honest peer of this network does not forward.
func TestFormat1ForkProofOfferedIsPunished(t *testing.T) {
	n := startFresh(t)
	k := recordtest.Hotkey(t, "//Alice")
	a, b := format1Blocks(t, k)
	raw, c, err := codec.Encode(&record.ForkProof{Format: record.ForkProofFormatV1, Validator: k.Public(), A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := objectServer(t, n, map[cid.Cid][]byte{c: raw})
	st := emptyStatus()
	st.Forks = []codec.Link{codec.LinkTo(c)}
	offerStatus(t, h, n, st)
	deadline := time.Now().Add(30 * time.Second)
	for !n.Banned(h.ID()) {
		if time.Now().After(deadline) {
			t.Fatal("a peer offering a fork proof of format 1 was not banned")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for p, err := range n.store.ForkProofs() {
		t.Errorf("fork proof %v stored (err %v)", p.CID, err)
	}
}

// TestFormat1ForkProofIsNotOffered: an observer on a store written before
// block format 2 (no network, so it opens) holds such a proof, and does
// not offer it to its peers, who would punish it for the proof.
func TestFormat1ForkProofIsNotOffered(t *testing.T) {
	dir := ledgertest.UnboundStore(t)
	k := recordtest.Hotkey(t, "//Alice")
	a, b := format1Blocks(t, k)
	if _, err := ledgertest.LegacyChain(dir, a); err != nil {
		t.Fatal(err)
	}
	if _, err := ledgertest.LegacyForkProof(dir, a, b); err != nil {
		t.Fatal(err)
	}
	store, err := ledger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	n := startOn(t, store, func(c *Config) { c.NetUID = recordtest.Network.Netuid })
	if held := n.proofs.list(wire.MaxForks); len(held) != 0 {
		t.Errorf("the observer offers %v, a fork proof of format 1", held)
	}
}
