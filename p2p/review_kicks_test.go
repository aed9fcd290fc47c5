package p2p

import (
	"encoding/binary"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewStatusHeadsStartBoundedBackfills: an observer accepts every
// validator, and a status naming a chain it lacks starts a backfill worker
// for that chain, which waits for one of the maxBackfills slots. A peer
// whose statuses name 1,024 new validators each (no signature needed), and
// that stalls the backfills it is asked for, holds the slots and makes the
// node keep one more goroutine per validator named: 1,024 per status, 50
// statuses a second. The node remembers at most MaxClaimsPerPeer chains of
// a peer; it should not wait on more.
func TestReviewStatusHeadsStartBoundedBackfills(t *testing.T) {
	store, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	n := startOn(t, store)
	h, _ := stallingPeer(t, n)
	const statuses = 3
	next := uint64(1)
	for range statuses {
		st := emptyStatus()
		for range wire.MaxHeads {
			var v keys.PublicKey
			binary.BigEndian.PutUint64(v[:], next)
			next++
			st.Heads = append(st.Heads, wire.Head{Validator: v, Height: 5, CID: codec.LinkTo(codec.Sum(v[:]))})
		}
		askStatus(t, h, n, st)
	}
	// Each status kicked its backfills before it was answered.
	if got, bound := goroutinesIn("p2p.(*syncer).work("), MaxClaimsPerPeer+maxBackfills; got > bound {
		t.Fatalf("%d statuses of %d unknown chains each left %d backfill goroutines, want at most %d", statuses, wire.MaxHeads, got, bound)
	}
}
