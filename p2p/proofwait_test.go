package p2p

import (
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestProofWaitingForAGossipedBlock: a fork proof that arrives before any
// block of its validator waits for the chain. It waited for a backfill
// only, which the next status exchange starts, so a node that got the
// first block by gossip recorded the proof only then (or never, in a
// test with a long status interval). Storing a gossiped block of the
// validator now records what waited for it.
func TestProofWaitingForAGossipedBlock(t *testing.T) {
	t.Parallel()
	eve, _ := keys.FromURI("//Eve")
	v := eve.Public()
	a, objs := blockAndObjects(t, testChain(t, eve, 1, 1, 0), v, 0)
	b, _ := blockAndObjects(t, testChain(t, eve, 1, 1, 10), v, 0)
	proof, err := record.NewForkProof(a.Raw, b.Raw)
	if err != nil {
		t.Fatal(err)
	}
	n, s := quietNetwork(t)

	n.proofs.record(proof, false)
	if !n.proofs.waiting(v) {
		t.Fatal("a proof above the stored chain does not wait")
	}
	// Block a arrives by gossip; the validator hands it to the store.
	m := map[cid.Cid][]byte{}
	for i, l := range wire.Links(a.Block) {
		m[l] = objs[i]
	}
	res, err := s.Put(a.Raw, m)
	if err != nil {
		t.Fatal(err)
	}
	n.afterPut("", a.Block, res, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		found := false
		for p, err := range s.ForkProofs() {
			if err == nil && p.Validator == v && p.Height == 0 {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the proof waiting for the gossiped block was not recorded")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
