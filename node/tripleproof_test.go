package node_test

import (
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestRelayedForkProofIsServed: a validator signs three blocks X, Y, Z at
// one height. Node 0 stores X and receives the fork proof (Y, Z) by gossip:
// it accepts it, and records the evidence by putting Y and Z, which stores
// the proofs (X, Y) and (X, Z), not (Y, Z). Node 0 offers in its status
// only what its store holds: when it offered (Y, Z) too, node 1, starting
// later, asked for it, got nothing, and banned an honest peer for "not
// serving an object it must hold".
func TestRelayedForkProofIsServed(t *testing.T) {
	t.Parallel()
	ctx, eve, c := eveObservers(t)
	n0 := c.Start(0)

	// Three blocks of Eve at height 0.
	var blocks [3][]byte
	var msgs [3][]byte
	for i, first := range []uint64{0, 1000, 2000} {
		msgs[i] = foreignChain(t, eve, first, 1, 2)[0]
		blocks[i] = decodeMessage(t, msgs[i]).Block
	}
	yz, err := record.NewForkProof(blocks[1], blocks[2])
	if err != nil {
		t.Fatal(err)
	}
	yzRaw, _, err := yz.Encode()
	if err != nil {
		t.Fatal(err)
	}

	r := newRogue(t, ctx)
	forks, err := r.ps.Join(wire.ForksTopic(recordtest.Network.Netuid))
	if err != nil {
		t.Fatal(err)
	}
	r.connect(t, ctx, n0.AddrInfo())
	for !hasPeer(forks.ListPeers(), n0.ID()) {
		select {
		case <-ctx.Done():
			t.Fatal("node 0 never joined the forks topic")
		case <-time.After(20 * time.Millisecond):
		}
	}
	r.publish(t, ctx, msgs[0]) // X
	if err := n0.WaitHead(ctx, eve.Public(), 0); err != nil {
		t.Fatal(err)
	}
	if err := forks.Publish(ctx, yzRaw); err != nil {
		t.Fatal(err)
	}
	for proofCount(t, n0) < 2 {
		select {
		case <-ctx.Done():
			t.Fatalf("node 0 holds %d fork proofs, want 2", proofCount(t, n0))
		case <-n0.Network().Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}

	// Node 1 joins, takes node 0's status and fetches its fork proofs.
	n1 := c.Start(1)
	for {
		if n1.Network().Banned(n0.ID()) {
			t.Fatalf("node 1 banned honest node 0 (stats %+v): node 0 offers fork proof (Y, Z) in its status but never stored it", n1.Network().Stats())
		}
		if proofCount(t, n1) >= 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node 1 holds %d fork proofs, want 2", proofCount(t, n1))
		case <-n1.Network().Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n1.Network().Banned(n0.ID()) {
		t.Fatal("node 1 banned honest node 0")
	}
}

func hasPeer[T comparable](ps []T, p T) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

func proofCount(t *testing.T, n *node.Node) int {
	t.Helper()
	k := 0
	for _, err := range n.Store().ForkProofs() {
		if err != nil {
			t.Fatal(err)
		}
		k++
	}
	return k
}
