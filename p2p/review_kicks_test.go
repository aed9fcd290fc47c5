package p2p

import (
	"encoding/binary"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// TestReviewStatusHeadsStartBoundedBackfills: an observer accepts every
// validator, and a status naming a chain it lacks queues a backfill of it.
// A peer whose statuses name 1,024 new validators each (no signature
// needed), and that stalls the backfills it is asked for, held the slots
// and made the node keep one goroutine per validator named, waiting for a
// slot: 1,024 per status, 50 statuses a second. Chains now wait as queue
// entries, and only the maxBackfills workers are goroutines.
func TestReviewStatusHeadsStartBoundedBackfills(t *testing.T) {
	n := startFresh(t)
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
	if got, bound := goroutinesIn("p2p.(*syncer).work("), maxBackfills; got > bound {
		t.Fatalf("%d statuses of %d unknown chains each left %d backfill goroutines, want at most %d", statuses, wire.MaxHeads, got, bound)
	}
}
